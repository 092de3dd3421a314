import { createHmac, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import { crc32 } from 'node:zlib';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const SECRET_BODY_LENGTH = 32;
const CHECKSUM_LENGTH = 6;

/**
 * Key format: `grk_<12 hex key_id>_<32 base62 secret><6 base62 checksum>`.
 * The checksum is CRC-32 of everything before it, so a mistyped or truncated key is
 * rejected without touching the database; it proves nothing about authenticity.
 */
const KEY_PATTERN = /^grk_([0-9a-f]{12})_([0-9A-Za-z]{32,})$/;

export interface ParsedApiKey {
  keyId: string;
  full: string;
}

/** Parses and checksum-verifies a presented key; undefined when malformed. */
export function parseApiKey(presented: string): ParsedApiKey | undefined {
  const match = KEY_PATTERN.exec(presented);
  if (!match) return undefined;
  const secret = match[2];
  const body = presented.slice(0, presented.length - CHECKSUM_LENGTH);
  if (checksum(body) !== secret.slice(-CHECKSUM_LENGTH)) return undefined;
  return { keyId: match[1], full: presented };
}

/** A fresh key id (public handle). */
export const newKeyId = (): string => randomBytes(6).toString('hex');

/** Mints a full key for a key id; the caller shows it once and stores only its hash. */
export function mintApiKey(keyId: string): string {
  let secret = '';
  for (let i = 0; i < SECRET_BODY_LENGTH; i += 1) secret += BASE62[randomInt(62)];
  const body = `grk_${keyId}_${secret}`;
  return body + checksum(body);
}

/** HMAC-SHA-256 of the whole key under the server pepper, hex. */
export function hashApiKey(key: string, pepper: string): string {
  return createHmac('sha256', pepper).update(key).digest('hex');
}

/** Constant-time comparison of two hex digests. */
export function digestsEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}

/** First characters shown in listings, never enough to use the key. */
export const displayPrefix = (keyId: string): string => `grk_${keyId}_…`;

function checksum(text: string): string {
  let value = crc32(text);
  let out = '';
  for (let i = 0; i < CHECKSUM_LENGTH; i += 1) {
    out = BASE62[value % 62] + out;
    value = Math.floor(value / 62);
  }
  return out;
}
