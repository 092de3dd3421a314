import { createHash, createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';

/**
 * Ed25519 approver keys as people keep them: private keys as PKCS#8 PEM (what `gr keys
 * create` writes, `openssl genpkey -algorithm ed25519`) or an unencrypted OpenSSH private
 * key (`ssh-keygen -t ed25519 -N ''`); public keys as an OpenSSH line
 * (`~/.ssh/id_ed25519.pub`) or a PEM `PUBLIC KEY`. Node reads PEM itself; the OpenSSH
 * formats are a few length-prefixed fields (RFC 4253 §6.6, PROTOCOL.key in OpenSSH).
 */
export class ApproverKeyFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ApproverKeyFormatError';
  }
}

/** DER prefixes wrapping a raw Ed25519 key (RFC 8410): PKCS#8 for a seed, SPKI for a public key. */
const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
const OPENSSH_MAGIC = Buffer.from('openssh-key-v1\0', 'latin1');

/** Reads SSH wire-format fields: uint32 lengths and the strings they prefix. */
function sshReader(data: Buffer, what: string) {
  let at = 0;
  const need = (n: number) => {
    if (at + n > data.length) throw new ApproverKeyFormatError(`${what} is truncated`);
  };
  return {
    uint32(): number {
      need(4);
      const value = data.readUInt32BE(at);
      at += 4;
      return value;
    },
    string(): Buffer {
      const length = this.uint32();
      need(length);
      const value = data.subarray(at, at + length);
      at += length;
      return value;
    },
  };
}

/**
 * An Ed25519 private key from its file's text: PKCS#8 PEM or an unencrypted OpenSSH key.
 * Any other kind of key, or an encrypted one, is an `ApproverKeyFormatError` saying what to do.
 */
export function parseSigningKey(text: string, source = 'the signing key'): KeyObject {
  if (text.includes('-----BEGIN OPENSSH PRIVATE KEY-----')) return openSshPrivateKey(text, source);
  if (text.includes('ENCRYPTED PRIVATE KEY')) {
    throw new ApproverKeyFormatError(
      `${source} is encrypted: decrypt it (openssl pkey -in KEY -out PLAIN) or run gr keys create`,
    );
  }
  let key: KeyObject;
  try {
    key = createPrivateKey(text);
  } catch (error) {
    throw new ApproverKeyFormatError(
      `${source} is not a private key gr can read (PKCS#8 PEM or OpenSSH): ${(error as Error).message}`,
    );
  }
  if (key.asymmetricKeyType !== 'ed25519') {
    throw new ApproverKeyFormatError(
      `${source} is an ${key.asymmetricKeyType} key; only Ed25519 keys sign decisions (ssh-keygen -t ed25519, or gr keys create)`,
    );
  }
  return key;
}

function openSshPrivateKey(text: string, source: string): KeyObject {
  const body = text.replace(/-----(BEGIN|END) OPENSSH PRIVATE KEY-----/g, '').replace(/\s+/g, '');
  const data = Buffer.from(body, 'base64');
  if (!data.subarray(0, OPENSSH_MAGIC.length).equals(OPENSSH_MAGIC)) {
    throw new ApproverKeyFormatError(`${source} is not an OpenSSH private key`);
  }
  const read = sshReader(data.subarray(OPENSSH_MAGIC.length), source);
  const cipher = read.string().toString();
  read.string(); // kdf name
  read.string(); // kdf options
  if (cipher !== 'none') {
    throw new ApproverKeyFormatError(
      `${source} is encrypted with a passphrase (${cipher}); gr cannot ask for it: remove it with ssh-keygen -p -N '' -f KEY (on a copy), or run gr keys create`,
    );
  }
  if (read.uint32() !== 1) throw new ApproverKeyFormatError(`${source} holds more than one key`);
  read.string(); // the public key, repeated inside
  const secret = sshReader(read.string(), source);
  if (secret.uint32() !== secret.uint32()) {
    throw new ApproverKeyFormatError(`${source} is corrupt (its check numbers differ)`);
  }
  const type = secret.string().toString();
  if (type !== 'ssh-ed25519') {
    throw new ApproverKeyFormatError(
      `${source} is an ${type} key; only Ed25519 keys sign decisions (ssh-keygen -t ed25519, or gr keys create)`,
    );
  }
  secret.string(); // public key (32 bytes)
  const seedAndPublic = secret.string(); // 64 bytes: the seed, then the public key
  if (seedAndPublic.length !== 64) throw new ApproverKeyFormatError(`${source} is corrupt`);
  return createPrivateKey({
    key: Buffer.concat([PKCS8_PREFIX, seedAndPublic.subarray(0, 32)]),
    format: 'der',
    type: 'pkcs8',
  });
}

/**
 * An Ed25519 public key from an OpenSSH line (`ssh-ed25519 AAAA… comment`) or a PEM
 * `PUBLIC KEY`; anything else (`ssh-rsa`, an RSA PEM, a private key) is refused.
 */
export function parsePublicKey(text: string, source = 'the public key'): KeyObject {
  const trimmed = text.trim();
  if (trimmed.includes('PRIVATE KEY')) {
    throw new ApproverKeyFormatError(
      `${source} is a private key: register its public half (the .pub file), never the private key`,
    );
  }
  if (trimmed.startsWith('-----BEGIN')) {
    let key: KeyObject;
    try {
      key = createPublicKey(trimmed);
    } catch (error) {
      throw new ApproverKeyFormatError(
        `${source} is not a PEM public key: ${(error as Error).message}`,
      );
    }
    if (key.asymmetricKeyType !== 'ed25519') {
      throw new ApproverKeyFormatError(
        `${source} is an ${key.asymmetricKeyType} key; only Ed25519 keys sign decisions`,
      );
    }
    return key;
  }
  const [type, base64] = trimmed.split(/\s+/);
  if (type !== 'ssh-ed25519') {
    throw new ApproverKeyFormatError(
      `${source} is ${type ? `an ${type} key` : 'empty'}; only Ed25519 keys sign decisions (ssh-ed25519 …, or a PEM PUBLIC KEY)`,
    );
  }
  const read = sshReader(Buffer.from(base64 ?? '', 'base64'), source);
  const inner = read.string().toString();
  const raw = read.string();
  if (inner !== 'ssh-ed25519' || raw.length !== 32) {
    throw new ApproverKeyFormatError(`${source} is not a well-formed ssh-ed25519 key`);
  }
  return createPublicKey({ key: Buffer.concat([SPKI_PREFIX, raw]), format: 'der', type: 'spki' });
}

/** The 32 raw bytes of an Ed25519 public key (or of a private key's public half), hex. */
export function rawPublicKeyHex(key: KeyObject): string {
  const publicKey = key.type === 'public' ? key : createPublicKey(key);
  const spki = publicKey.export({ format: 'der', type: 'spki' });
  return spki.subarray(spki.length - 32).toString('hex');
}

/** The OpenSSH line of an Ed25519 public key, as `~/.ssh/id_ed25519.pub` holds it. */
export function openSshPublicKey(key: KeyObject, comment = ''): string {
  const u32 = (n: number) => {
    const b = Buffer.alloc(4);
    b.writeUInt32BE(n);
    return b;
  };
  const name = Buffer.from('ssh-ed25519');
  const raw = Buffer.from(rawPublicKeyHex(key), 'hex');
  const wire = Buffer.concat([u32(name.length), name, u32(raw.length), raw]);
  return `ssh-ed25519 ${wire.toString('base64')}${comment ? ` ${comment}` : ''}`;
}

/** `SHA256:…` of an Ed25519 public key, as `ssh-keygen -lf` prints it and the service shows it. */
export function publicKeyFingerprint(key: KeyObject): string {
  const wire = Buffer.from(openSshPublicKey(key).split(' ')[1], 'base64');
  return `SHA256:${createHash('sha256').update(wire).digest('base64').replace(/=+$/, '')}`;
}
