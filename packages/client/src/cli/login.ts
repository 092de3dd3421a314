import type { Command } from 'commander';
import { createInterface } from 'node:readline/promises';
import { Writable } from 'node:stream';
import {
  configPath,
  profileName,
  readConfigFile,
  writeConfigFile,
  type ConnectionFlags,
} from './config';
import { CliError } from './fail';
import { cliClient } from './http';
import { whoAmI } from './keys';
import { createOutput } from './output';

interface LoginFlags extends ConnectionFlags {
  json?: boolean;
}

/**
 * `gr login`: checks a URL and key against the service (`GET /v1/principals/me`) and saves
 * them as a profile (default `default`, made the current one) in the config file, 0600.
 */
export function registerLoginCommand(program: Command): void {
  program
    .command('login')
    .description('check a URL and key and save them as a profile (the file is 0600)')
    .option('--url <url>', "service URL (else GR_URL, else the profile's)")
    .option('--key <key>', 'API key (else GR_API_KEY, else read from stdin: hidden at a terminal)')
    .option('--profile <name>', 'profile to write (default: the current one, else default)')
    .option('--json', 'print JSON for scripts')
    .action(async (flags: LoginFlags) => {
      const out = createOutput(Boolean(flags.json));
      const path = configPath();
      const config = readConfigFile(path);
      const name = profileName(flags, config);
      const url = flags.url || process.env['GR_URL'] || config.profiles[name]?.url;
      if (!url) throw new CliError('no service URL: pass --url or set GR_URL', 2);
      const key = flags.key || process.env['GR_API_KEY'] || (await readKey());
      if (!key) throw new CliError('no API key: pass --key, set GR_API_KEY or type it', 2);
      const me = await whoAmI(cliClient(url, key));
      writeConfigFile(path, {
        ...config,
        current: name,
        profiles: { ...config.profiles, [name]: { ...config.profiles[name], url, key } },
      });
      if (out.json) return out.data({ profile: name, path, url, whoami: me });
      out.line(
        `logged in to ${url} as ${me.principal.name} (${me.principal.principal_id}, ${me.organization.name}) with key ${me.key.key_id}`,
      );
      out.line(`profile ${name} saved in ${path} (mode 0600)`);
    });
}

/** The key from stdin: asked for at a terminal without echoing it, else its first line. */
async function readKey(): Promise<string> {
  const interactive = Boolean(process.stdin.isTTY);
  const silent = new Writable({ write: (_chunk, _encoding, done) => done() });
  if (interactive) process.stderr.write('API key: ');
  const prompt = createInterface({
    input: process.stdin,
    output: interactive ? silent : undefined,
    terminal: interactive,
  });
  try {
    for await (const line of prompt) return line.trim();
    return '';
  } finally {
    prompt.close();
    if (interactive) process.stderr.write('\n');
  }
}
