import { verify } from 'node:crypto';
import { ed25519KeyObject } from './ed25519-public-key';

const KEY_HEX = /^[0-9a-f]{64}$/;
const SIGNATURE_HEX = /^[0-9a-f]{128}$/;

/**
 * True when `signatureHex` is the key's Ed25519 signature of `message`, checked by Node's
 * crypto (OpenSSL, the same check as the `openssl pkeyutl -verify` docs/approvals.md shows).
 * For approver keys, which are many and each seen rarely: the workflow sandbox's verifier
 * (`decision-signature.ts`, pure JavaScript) precomputes tables per key, tens of
 * milliseconds for a key it has not seen, worth it only for the api's few decision keys. Outside the sandbox
 * only: workflows cannot import `node:crypto`.
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
