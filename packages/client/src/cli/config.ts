import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { CliError } from './fail';

/** One saved connection: where the service is and the key to call it with. */
export interface Profile {
  url: string;
  key: string;
}

/**
 * A profile as the file keeps it: the connection (absent when only a signing key was
 * recorded for a profile configured by GR_URL / GR_API_KEY) and the private key file that
 * signs this profile's decisions (`gr keys create` records it).
 */
export interface StoredProfile extends Partial<Profile> {
  signing_key?: string;
}

/** `~/.config/governed-runtime/config.json`: profiles by name and the one used by default. */
export interface ConfigFile {
  current?: string;
  profiles: Record<string, StoredProfile>;
}

/** What every command may be given on its command line. */
export interface ConnectionFlags {
  url?: string;
  key?: string;
  profile?: string;
}

export const DEFAULT_PROFILE = 'default';

/** The profile file's path: `$XDG_CONFIG_HOME/governed-runtime/config.json`, else under `~/.config`. */
export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  const base = env['XDG_CONFIG_HOME'] || join(env['HOME'] || homedir(), '.config');
  return join(base, 'governed-runtime', 'config.json');
}

/** Where `gr keys create` keeps private keys: `keys/` beside the profile file (0700). */
export const keysFolder = (env: NodeJS.ProcessEnv = process.env): string =>
  join(dirname(configPath(env)), 'keys');

/** The profile file, or an empty one when there is none; a file that is not JSON is an error. */
export function readConfigFile(path: string): ConfigFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { profiles: {} };
    throw error;
  }
  try {
    const parsed = JSON.parse(text) as Partial<ConfigFile>;
    return { ...parsed, profiles: parsed.profiles ?? {} };
  } catch {
    throw new CliError(`${path} is not valid JSON; fix or remove it`);
  }
}

/**
 * Writes the file readable by its owner only (it holds API keys): the directory 0700, the
 * file 0600, also when it existed before with looser modes.
 */
export function writeConfigFile(path: string, config: ConfigFile): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  writeFileSync(path, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  chmodSync(path, 0o600);
}

/** Which profile a command uses: `--profile`, else `GR_PROFILE`, else the file's current one. */
export function profileName(
  flags: ConnectionFlags,
  config: ConfigFile,
  env: NodeJS.ProcessEnv = process.env,
): string {
  return flags.profile || env['GR_PROFILE'] || config.current || DEFAULT_PROFILE;
}

/**
 * The URL and key a command calls with, each taken from the first that sets it: the flags
 * (`--url`, `--key`), the environment (`GR_URL`, `GR_API_KEY`), the profile.
 */
export function resolveConnection(
  flags: ConnectionFlags,
  env: NodeJS.ProcessEnv = process.env,
): Profile {
  const path = configPath(env);
  const config = readConfigFile(path);
  const name = profileName(flags, config, env);
  const profile = config.profiles[name];
  if (flags.profile && !profile) throw new CliError(`no profile ${name} in ${path}`);
  const url = flags.url || env['GR_URL'] || profile?.url;
  const key = flags.key || env['GR_API_KEY'] || profile?.key;
  if (!url) throw new CliError('no service URL: pass --url, set GR_URL or run gr login');
  if (!key) throw new CliError('no API key: pass --key, set GR_API_KEY or run gr login');
  return { url, key };
}
