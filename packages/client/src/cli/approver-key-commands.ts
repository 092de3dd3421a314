import { generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import type { Command } from 'commander';
import {
  ApproverKeyFormatError,
  openSshPublicKey,
  parsePublicKey,
  rawPublicKeyHex,
} from '../approver-keys';
import { configPath, keysFolder, profileName, readConfigFile, writeConfigFile } from './config';
import { CliError } from './fail';
import { table, type Style } from './output';
import { openSession, withCommonOptions, type CommonFlags, type Session } from './session';
import { configuredSigningKey, loadSigningKey, myApproverKeys } from './signing-key';
import type { ApproverKeyView } from './types';

interface NameFlags extends CommonFlags {
  name?: string;
}

/**
 * `gr keys create | register | list | revoke`: the caller's approver keys, the Ed25519 keys
 * that sign their own approvals and rejections (docs/approvals.md).
 */
export function registerApproverKeyCommands(keys: Command): void {
  withCommonOptions(keys.command('create'))
    .description('make an Ed25519 approver key, register it, and sign decisions with it')
    .option('--name <name>', 'what the key is, for people (default: gr CLI on <host>)')
    .action(async (flags: NameFlags) => createKey(openSession(flags), flags));

  withCommonOptions(keys.command('register').argument('<file>'))
    .description('register an Ed25519 public key (~/.ssh/id_ed25519.pub or a PEM PUBLIC KEY)')
    .option('--name <name>', 'what the key is (default: the key comment, else the file name)')
    .action(async (file: string, flags: NameFlags) => registerKey(openSession(flags), file, flags));

  withCommonOptions(keys.command('list'))
    .description('your approver keys, revoked ones included; * marks the signing key')
    .action(async (flags: CommonFlags) => {
      const session = openSession(flags);
      const mine = await myApproverKeys(session.client);
      if (session.out.json) return session.out.data(mine);
      if (mine.length === 0) return session.out.line('no approver keys (gr keys create)');
      const signing = signingKeyHex(flags);
      for (const line of keyTable(mine, signing, session.out.style)) session.out.line(line);
    });

  withCommonOptions(keys.command('revoke').argument('<key_id>'))
    .description('revoke one of your approver keys: it signs nothing from now on')
    .action(async (keyId: string, flags: CommonFlags) => {
      const session = openSession(flags);
      const { data } = await session.client.POST('/v1/principals/me/keys/revoke', {
        body: { key_id: keyId },
      });
      const key = data!.payload;
      if (session.out.json) return session.out.data(key);
      session.out.line(`revoked ${key.key_id} (${key.name}, ${key.fingerprint})`);
    });
}

/**
 * A new key pair: the private key is written first (PKCS#8 PEM, 0600, in a 0700 folder
 * beside the profile file), so a registered key is never one whose private half was lost;
 * it is removed again if the service refuses the public half. Then the profile signs with it.
 */
async function createKey(session: Session, flags: NameFlags): Promise<void> {
  const { privateKey } = generateKeyPairSync('ed25519');
  const folder = keysFolder();
  for (const dir of [dirname(folder), folder]) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chmodSync(dir, 0o700);
  }
  const pending = join(folder, `pending-${randomBytes(6).toString('hex')}.pem`);
  writeFileSync(pending, privateKey.export({ format: 'pem', type: 'pkcs8' }), { mode: 0o600 });
  let key: ApproverKeyView;
  try {
    const { data } = await session.client.POST('/v1/principals/me/keys/register', {
      body: {
        name: flags.name ?? `gr CLI on ${hostname()}`,
        public_key: openSshPublicKey(privateKey, 'gr'),
      },
    });
    key = data!.payload;
  } catch (error) {
    rmSync(pending, { force: true });
    throw error;
  }
  const path = join(folder, `${key.key_id}.pem`);
  renameSync(pending, path);
  const profile = recordSigningKey(flags, path);
  if (session.out.json) return session.out.data({ key, private_key: path, profile });
  session.out.line(`created approver key ${key.key_id} "${key.name}" ${key.fingerprint}`);
  session.out.line(`  private key ${path} (mode 0600; it never leaves this machine)`);
  session.out.line(`  profile ${profile} signs approvals and rejections with it`);
}

/** Records `path` as the profile's signing key; answers the profile's name. */
function recordSigningKey(flags: CommonFlags, path: string): string {
  const file = configPath();
  const config = readConfigFile(file);
  const name = profileName(flags, config);
  writeConfigFile(file, {
    ...config,
    current: config.current ?? name,
    profiles: { ...config.profiles, [name]: { ...config.profiles[name], signing_key: path } },
  });
  return name;
}

async function registerKey(session: Session, file: string, flags: NameFlags): Promise<void> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new CliError(`cannot read ${file}: ${(error as Error).message}`);
  }
  let publicKey: KeyObject;
  try {
    publicKey = parsePublicKey(text, file);
  } catch (error) {
    if (error instanceof ApproverKeyFormatError) throw new CliError(error.message);
    throw error;
  }
  const comment = text.trim().startsWith('ssh-') ? text.trim().split(/\s+/).slice(2).join(' ') : '';
  const { data } = await session.client.POST('/v1/principals/me/keys/register', {
    body: {
      name: (flags.name ?? (comment || basename(file))).slice(0, 128),
      public_key: openSshPublicKey(publicKey),
    },
  });
  const key = data!.payload;
  if (session.out.json) return session.out.data(key);
  session.out.line(`registered approver key ${key.key_id} "${key.name}" ${key.fingerprint}`);
  session.out.line(
    `  sign with its private key: --signing-key FILE or GR_SIGNING_KEY=FILE (PKCS#8 PEM or an unencrypted OpenSSH key)`,
  );
}

/** The raw public key of the configured signing key, to mark it in the list (none if unreadable). */
function signingKeyHex(flags: CommonFlags): string | undefined {
  const source = configuredSigningKey(flags);
  if (!source) return undefined;
  try {
    return rawPublicKeyHex(loadSigningKey(source));
  } catch {
    return undefined;
  }
}

function keyTable(keys: ApproverKeyView[], signing: string | undefined, style: Style): string[] {
  return table(
    ['', 'KEY', 'KIND', 'STATUS', 'CREATED', 'FINGERPRINT', 'NAME'],
    keys.map((k) => [
      k.kind === 'ed25519' && k.public_key === signing ? '*' : '',
      k.key_id,
      k.kind,
      style.status(k.status),
      k.created_at.slice(0, 16).replace('T', ' '),
      k.kind === 'ed25519' ? k.fingerprint : `passkey ${k.fingerprint.slice(0, 16)}…`,
      k.name,
    ]),
  );
}
