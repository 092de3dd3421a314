import { execFileSync, spawnSync } from 'node:child_process';
import { generateKeyPairSync, verify } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  openSshPublicKey,
  parsePublicKey,
  parseSigningKey,
  publicKeyFingerprint,
  rawPublicKeyHex,
} from '../../packages/client/src/approver-keys';
import {
  approverChallengeBytes,
  signDecision,
  type DecisionChallenge,
} from '../../packages/client/src/sign-decision';
import { approverChallengeMessage } from '../../src/signing/approver-challenge';

// The client reads approver keys in the formats people have (PKCS#8 PEM, OpenSSH) and signs
// exactly the bytes the service defines. ssh-keygen, when the machine has it, makes the
// OpenSSH files, so the parser is held to the real format, not to our own writer's.
const hasSshKeygen = spawnSync('ssh-keygen', ['-?']).error === undefined;
const sshIt = hasSshKeygen ? it : it.skip;

function sshKeygen(...args: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'gr-ssh-'));
  const file = join(dir, 'id_ed25519');
  execFileSync('ssh-keygen', ['-q', '-f', file, ...args]);
  return file;
}

describe('approver key formats', () => {
  sshIt('reads an unencrypted OpenSSH private key and its .pub as the same key', () => {
    const file = sshKeygen('-t', 'ed25519', '-N', '', '-C', 'ada@laptop');
    const privateKey = parseSigningKey(readFileSync(file, 'utf8'));
    const publicKey = parsePublicKey(readFileSync(`${file}.pub`, 'utf8'));
    expect(rawPublicKeyHex(privateKey)).toBe(rawPublicKeyHex(publicKey));
    const sshFingerprint = execFileSync('ssh-keygen', ['-lf', `${file}.pub`], { encoding: 'utf8' });
    expect(sshFingerprint).toContain(publicKeyFingerprint(publicKey));
    expect(openSshPublicKey(publicKey)).toBe(
      readFileSync(`${file}.pub`, 'utf8').split(' ').slice(0, 2).join(' '),
    );
  });

  sshIt('refuses an encrypted OpenSSH key, saying to use ssh-keygen -p or gr keys create', () => {
    const file = sshKeygen('-t', 'ed25519', '-N', 'secret words');
    expect(() => parseSigningKey(readFileSync(file, 'utf8'), file)).toThrow(
      /encrypted with a passphrase.*ssh-keygen -p.*gr keys create/,
    );
  });

  sshIt('refuses RSA keys, private and public, naming Ed25519', () => {
    const file = sshKeygen('-t', 'rsa', '-b', '2048', '-N', '');
    expect(() => parseSigningKey(readFileSync(file, 'utf8'))).toThrow(/ssh-rsa key; only Ed25519/);
    expect(() => parsePublicKey(readFileSync(`${file}.pub`, 'utf8'))).toThrow(
      /ssh-rsa key; only Ed25519/,
    );
  });

  it('reads PKCS#8 and SPKI PEM, and refuses other key types and a private key to register', () => {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    const spki = publicKey.export({ format: 'pem', type: 'spki' }).toString();
    expect(rawPublicKeyHex(parseSigningKey(pem))).toBe(rawPublicKeyHex(parsePublicKey(spki)));
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    expect(() =>
      parseSigningKey(ec.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString()),
    ).toThrow(/ec key; only Ed25519/);
    expect(() =>
      parsePublicKey(ec.publicKey.export({ format: 'pem', type: 'spki' }).toString()),
    ).toThrow(/ec key; only Ed25519/);
    expect(() => parsePublicKey(pem)).toThrow(/is a private key: register its public half/);
    expect(() => parseSigningKey('not a key')).toThrow(/not a private key gr can read/);
    expect(() =>
      parseSigningKey(
        '-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED PRIVATE KEY-----',
      ),
    ).toThrow(/is encrypted/);
  });
});

describe('signDecision', () => {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const fields = {
    action_id: 'act_01JGFJJZ00006BC8TT97EMRPSC',
    decision: 'approve' as const,
    plan_digest: `sha256:${'ab'.repeat(32)}`,
    rule_id: 'apr_01JGFJJZ00006BC8TT97EMRPSD',
    rule_version: 2,
    principal_id: 'prn_01JGFJJZ00006BC8TT97EMRPSE',
    nonce: 'ach_01JGFJJZ00006BC8TT97EMRPSF',
    expires_at: '2026-11-27T03:00:00.000Z',
  };
  const challenge = (over: Partial<DecisionChallenge> = {}): DecisionChallenge => {
    const base = { ...fields, ...over };
    const message = approverChallengeBytes(base).toString('utf8');
    return {
      ...base,
      message,
      message_base64: Buffer.from(message).toString('base64'),
      webauthn_challenge: '',
      allow_credentials: [],
      rp_id: 'localhost',
      ...over,
    };
  };
  const intended = {
    action_id: fields.action_id,
    decision: 'approve' as const,
    plan_digest: fields.plan_digest,
  };

  it('builds the bytes the service defines and signs them', () => {
    // The service's own definition (src/signing/approver-challenge.ts) of the same challenge.
    expect(approverChallengeBytes(fields)).toEqual(Buffer.from(approverChallengeMessage(fields)));
    const assertion = signDecision(challenge(), { keyId: 'apk_1', privateKey }, intended);
    expect(assertion).toMatchObject({
      key_id: 'apk_1',
      nonce: fields.nonce,
      expires_at: fields.expires_at,
    });
    const signature = Buffer.from(assertion.signature, 'hex');
    expect(verify(null, approverChallengeBytes(fields), publicKey, signature)).toBe(true);
  });

  it('signs no message other than its fields, and no other action, decision or plan', () => {
    const signer = { keyId: 'apk_1', privateKey };
    const forged = challenge({
      message: approverChallengeBytes({ ...fields, action_id: 'act_X' }).toString(),
    });
    expect(() => signDecision(forged, signer, intended)).toThrow(/not the bytes its fields make/);
    expect(() => signDecision(challenge({ action_id: 'act_other' }), signer, intended)).toThrow(
      /names action_id act_other/,
    );
    expect(() => signDecision(challenge({ decision: 'reject' }), signer, intended)).toThrow(
      /names decision reject, not approve/,
    );
    expect(() =>
      signDecision(challenge({ plan_digest: `sha256:${'cd'.repeat(32)}` }), signer, intended),
    ).toThrow(/names plan_digest/);
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
    expect(() => signDecision(challenge(), { keyId: 'k', privateKey: ec }, intended)).toThrow(
      /only an Ed25519 key/,
    );
  });
});
