import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { call } from './http';
import type { TestKey } from './keys';
import type { TestApp } from './test-app';

/** An approver's own Ed25519 key pair, as `ssh-keygen -t ed25519` would make it. */
export interface ApproverKeyPair {
  privateKey: KeyObject;
  /** The raw public key, hex. */
  hex: string;
  /** `ssh-ed25519 AAAA… comment`, as in `~/.ssh/id_ed25519.pub`. */
  openSsh: string;
}

export function newApproverKeyPair(): ApproverKeyPair {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const spki = publicKey.export({ format: 'der', type: 'spki' });
  const raw = spki.subarray(spki.length - 32);
  const u32 = (n: number) => {
    const b = Buffer.alloc(4);
    b.writeUInt32BE(n);
    return b;
  };
  const name = Buffer.from('ssh-ed25519');
  const wire = Buffer.concat([u32(name.length), name, u32(32), raw]);
  return {
    privateKey,
    hex: raw.toString('hex'),
    openSsh: `ssh-ed25519 ${wire.toString('base64')} approver@test`,
  };
}

/** Registers the pair's public key for `who`; answers the approver key id. */
export async function registerApproverKey(
  app: TestApp,
  who: TestKey,
  pair: ApproverKeyPair,
): Promise<string> {
  const res = await call<{ payload: { key_id: string } }>(
    app.url,
    'POST',
    '/v1/principals/me/keys/register',
    { key: who.apiKey, body: { name: 'cli', public_key: pair.openSsh } },
  );
  if (res.status !== 201) throw new Error(`register failed: ${res.status} ${res.text}`);
  return res.body.payload.key_id;
}

export interface IssuedChallenge {
  nonce: string;
  expires_at: string;
  message: string;
  message_base64: string;
  plan_digest: string;
  webauthn_challenge: string;
}

/** Asks for a challenge to sign a decision on `actionId`. */
export async function challengeFor(
  app: TestApp,
  who: TestKey,
  actionId: string,
  decision: 'approve' | 'reject' = 'approve',
  planDigest?: string,
): Promise<IssuedChallenge> {
  const res = await call<{ payload: IssuedChallenge }>(
    app.url,
    'POST',
    `/v1/external-actions/${actionId}/challenge`,
    { key: who.apiKey, body: { decision, ...(planDigest ? { plan_digest: planDigest } : {}) } },
  );
  if (res.status !== 200) throw new Error(`challenge failed: ${res.status} ${res.text}`);
  return res.body.payload;
}

/** The assertion an Ed25519 approver sends: the challenge's bytes, signed. */
export const ed25519Assertion = (
  pair: ApproverKeyPair,
  keyId: string,
  challenge: Pick<IssuedChallenge, 'nonce' | 'expires_at' | 'message'>,
) => ({
  key_id: keyId,
  nonce: challenge.nonce,
  expires_at: challenge.expires_at,
  signature: sign(null, Buffer.from(challenge.message, 'utf8'), pair.privateKey).toString('hex'),
});
