import { createHash, createPublicKey, type KeyObject } from 'node:crypto';

/**
 * Reads an Ed25519 public key in the forms people have at hand: an OpenSSH line
 * (`ssh-ed25519 AAAA… comment`, as in `~/.ssh/id_ed25519.pub`), a PEM `PUBLIC KEY` (SPKI,
 * as `openssl pkey -pubout` writes), or the raw 32 bytes as hex or base64. Answers the raw
 * key as hex, or why it is not one.
 */
export function parseEd25519PublicKey(
  text: string,
): { ok: true; hex: string } | { ok: false; problem: string } {
  const value = text.trim();
  if (value.startsWith('ssh-')) return fromOpenSsh(value);
  if (value.startsWith('-----BEGIN')) return fromPem(value);
  if (/^[0-9a-fA-F]{64}$/.test(value)) return { ok: true, hex: value.toLowerCase() };
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(value)) {
    const raw = Buffer.from(value.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    if (raw.length === 32) return { ok: true, hex: raw.toString('hex') };
  }
  return {
    ok: false,
    problem:
      'not an Ed25519 public key: give an OpenSSH line (ssh-ed25519 AAAA…), a PEM PUBLIC KEY, or the 32 raw bytes as hex or base64',
  };
}

const SSH_ED25519 = 'ssh-ed25519';

function fromOpenSsh(line: string): { ok: true; hex: string } | { ok: false; problem: string } {
  const [type, blob] = line.split(/\s+/);
  if (type !== SSH_ED25519) {
    return {
      ok: false,
      problem: `an OpenSSH key of type ${type}; only ssh-ed25519 keys sign approvals`,
    };
  }
  const wire = Buffer.from(blob ?? '', 'base64');
  // The wire blob: string "ssh-ed25519", string <32-byte key> (each a 4-byte length first).
  const nameLength = wire.length >= 4 ? wire.readUInt32BE(0) : -1;
  const name = wire.subarray(4, 4 + Math.max(nameLength, 0)).toString('latin1');
  const keyAt = 4 + nameLength;
  if (name !== SSH_ED25519 || wire.length !== keyAt + 36 || wire.readUInt32BE(keyAt) !== 32) {
    return { ok: false, problem: 'the ssh-ed25519 line does not hold a 32-byte key' };
  }
  return { ok: true, hex: wire.subarray(keyAt + 4).toString('hex') };
}

function fromPem(pem: string): { ok: true; hex: string } | { ok: false; problem: string } {
  try {
    const key = createPublicKey(pem);
    if (key.asymmetricKeyType !== 'ed25519') {
      return {
        ok: false,
        problem: `a ${key.asymmetricKeyType ?? 'unknown'} PEM key; only Ed25519 keys sign approvals`,
      };
    }
    const spki = key.export({ format: 'der', type: 'spki' });
    return { ok: true, hex: spki.subarray(spki.length - 32).toString('hex') };
  } catch {
    return { ok: false, problem: 'the PEM is not a public key' };
  }
}

/** The key as `ssh-keygen -lf` names it: `SHA256:` and the base64 SHA-256 of its wire blob. */
export function ed25519Fingerprint(hex: string): string {
  const name = Buffer.from(SSH_ED25519, 'latin1');
  const key = Buffer.from(hex, 'hex');
  const wire = Buffer.concat([u32(name.length), name, u32(key.length), key]);
  return `SHA256:${createHash('sha256').update(wire).digest('base64').replace(/=+$/, '')}`;
}

/** DER of an Ed25519 SubjectPublicKeyInfo up to its 32 raw key bytes (RFC 8410). */
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/** The raw key (64 hex digits) as Node's key object; throws on a malformed key. */
export function ed25519KeyObject(hex: string): KeyObject {
  return createPublicKey({
    key: Buffer.concat([SPKI_PREFIX, Buffer.from(hex, 'hex')]),
    format: 'der',
    type: 'spki',
  });
}

function u32(n: number): Buffer {
  const out = Buffer.alloc(4);
  out.writeUInt32BE(n);
  return out;
}
