import { createHash, randomFillSync } from 'node:crypto';
import { monotonicFactory } from 'ulid';

/** Type prefixes of server-issued ids (docs/conventions.md). */
export type IdPrefix =
  | 'ses'
  | 'obj'
  | 'rel'
  | 'tsk'
  | 'evt'
  | 'rec'
  | 'act'
  | 'apk'
  | 'ach'
  | 'dep'
  | 'art'
  | 'rep'
  | 'chk'
  | 'thr'
  | 'org'
  | 'prj'
  | 'prn'
  | 'pol'
  | 'aud'
  | 'req'
  | 'sev'
  | 'dec'
  | 'apr'
  | 'sub'
  | 'ntf'
  | 'asy'
  | 'prf'
  | 'scn'
  | 'dos';

const pool = Buffer.alloc(4096);
let offset = pool.length;

/**
 * Cryptographic randomness for ULIDs from a refilled pool: the library's default asks the
 * OS for one byte per character, which showed up in the request path's profile.
 */
function pooledRandom(): number {
  if (offset >= pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  return pool[offset++] / 0x100;
}

const nextUlid = monotonicFactory(pooledRandom);

/** A path-safe id: type prefix plus a ULID (time-ordered, 80 random bits). */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${nextUlid()}`;
}

/** Crockford base32, the alphabet of ULIDs. */
export const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * `length` (≤ 32) ULID characters derived from `seed` (sha256, one character per byte), for
 * ids that must come out the same every time the same thing is written (seeded records).
 */
export function digestChars(seed: string, length: number): string {
  const digest = createHash('sha256').update(seed).digest();
  let chars = '';
  for (let i = 0; i < length; i += 1) chars += CROCKFORD[digest[i] % 32];
  return chars;
}
