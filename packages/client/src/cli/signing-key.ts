import type { KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ApproverKeyFormatError, parseSigningKey, rawPublicKeyHex } from '../approver-keys';
import type { GovernedClient } from '../client';
import { configPath, profileName, readConfigFile, type ConnectionFlags } from './config';
import { CliError } from './fail';
import type { ApproverKeyView } from './types';

/** The flag that names the private key decisions are signed with. */
export interface SigningKeyFlags extends ConnectionFlags {
  signingKey?: string;
}

/** Where the signing key comes from, for messages: the flag, the variable or the profile. */
export interface SigningKeySource {
  path: string;
  from: '--signing-key' | 'GR_SIGNING_KEY' | 'profile';
}

/**
 * The private key file decisions are signed with, from the first that names one:
 * `--signing-key`, `GR_SIGNING_KEY`, the profile's `signing_key`. Undefined when none does.
 */
export function configuredSigningKey(
  flags: SigningKeyFlags,
  env: NodeJS.ProcessEnv = process.env,
): SigningKeySource | undefined {
  if (flags.signingKey) return { path: flags.signingKey, from: '--signing-key' };
  if (env['GR_SIGNING_KEY']) return { path: env['GR_SIGNING_KEY'], from: 'GR_SIGNING_KEY' };
  const config = readConfigFile(configPath(env));
  const path = config.profiles[profileName(flags, config, env)]?.signing_key;
  return path ? { path, from: 'profile' } : undefined;
}

/** The private key in the file, or a CliError saying why it cannot sign. */
export function loadSigningKey(source: SigningKeySource): KeyObject {
  let text: string;
  try {
    text = readFileSync(source.path, 'utf8');
  } catch (error) {
    throw new CliError(
      `cannot read the signing key ${source.path} (from ${source.from}): ${(error as Error).message}`,
    );
  }
  try {
    return parseSigningKey(text, `the signing key ${source.path}`);
  } catch (error) {
    if (error instanceof ApproverKeyFormatError) throw new CliError(error.message);
    throw error;
  }
}

/** A signing key with the id the service registered its public half under. */
export interface Signer {
  keyId: string;
  privateKey: KeyObject;
  path: string;
}

/**
 * The registered approver key whose public half is this private key's, found among the
 * caller's keys. Not registered, or revoked, is a CliError that says what to do.
 */
export async function registeredSigner(
  client: GovernedClient,
  source: SigningKeySource,
): Promise<Signer> {
  const privateKey = loadSigningKey(source);
  const mine = await myApproverKeys(client);
  const hex = rawPublicKeyHex(privateKey);
  const matching = mine.filter((k) => k.kind === 'ed25519' && k.public_key === hex);
  const active = matching.find((k) => k.status === 'active');
  if (active) return { keyId: active.key_id, privateKey, path: source.path };
  if (matching.length > 0) {
    const revoked = matching[0];
    throw new CliError(
      `the signing key ${source.path} is approver key ${revoked.key_id}, revoked at ${revoked.revoked_at}: it signs nothing now; run gr keys create, or register another key`,
    );
  }
  throw new CliError(
    `the signing key ${source.path} (from ${source.from}) is not registered as one of your approver keys: register its public half with gr keys register FILE.pub, or run gr keys create`,
  );
}

/** The caller's approver keys, revoked ones included (`GET /v1/principals/me/keys`). */
export async function myApproverKeys(client: GovernedClient): Promise<ApproverKeyView[]> {
  const { data } = await client.GET('/v1/principals/me/keys');
  return data!.payload.items;
}
