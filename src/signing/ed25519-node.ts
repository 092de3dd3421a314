import { verify } from 'node:crypto';
import { ed25519KeyObject } from './ed25519-public-key';

const KEY_HEX = /^[0-9a-f]{64}$/;
const SIGNATURE_HEX = /^[0-9a-f]{128}$/;

/**
 * True when `signatureHex` is the key's Ed25519 signature of `message`, checked by Node's
 * crypto (OpenSSL, the same check as the `openssl pkeyutl -verify` docs/approvals.md shows).
 * Every check outside the workflow sandbox goes through it: approver keys, and the api's
 * signatures the worker's activities check again before an effect or a record. The
 * sandbox cannot import `node:crypto`; its verifier (`decision-signature.ts`, pure
 * JavaScript, precomputed tables for the api's few keys) costs several times more.
 */
export function verifyEd25519(
  publicKeyHex: string,
  message: Uint8Array,
  signatureHex: string,
): boolean {
  if (!KEY_HEX.test(publicKeyHex) || !SIGNATURE_HEX.test(signatureHex)) return false;
  try {
    return verify(null, message, ed25519KeyObject(publicKeyHex), Buffer.from(signatureHex, 'hex'));
  } catch {
    return false;
  }
}
