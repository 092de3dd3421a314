import type { Command } from 'commander';
import type { GovernedClient } from '../client';
import { openSession, withCommonOptions, type CommonFlags } from './session';
import type { WhoAmI } from './types';
import { whoAmILines } from './whoami-view';

/** `gr keys whoami`: who the configured key is. */
export function registerKeyCommands(program: Command): void {
  const keys = program.command('keys').description('API keys');
  withCommonOptions(keys.command('whoami'))
    .description('the key in use: its principal, organization, class, layer and families')
    .action(async (flags: CommonFlags) => {
      const session = openSession(flags);
      const me = await whoAmI(session.client);
      if (session.out.json) return session.out.data(me);
      for (const line of whoAmILines(me, session.url, session.out.style)) session.out.line(line);
    });
}

export async function whoAmI(client: GovernedClient): Promise<WhoAmI> {
  const { data } = await client.GET('/v1/principals/me');
  return data!.payload;
}
