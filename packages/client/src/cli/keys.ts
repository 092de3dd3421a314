import type { Command } from 'commander';
import { registerApproverKeyCommands } from './approver-key-commands';
import type { GovernedClient } from '../client';
import { openSession, withCommonOptions, type CommonFlags } from './session';
import type { WhoAmI } from './types';
import { whoAmILines } from './whoami-view';

/** `gr keys whoami`: who the configured API key is; then the approver keys' commands. */
export function registerKeyCommands(program: Command): void {
  const keys = program
    .command('keys')
    .description('who your API key is, and the approver keys that sign your decisions');
  withCommonOptions(keys.command('whoami'))
    .description('the key in use: its principal, organization, class, layer and families')
    .action(async (flags: CommonFlags) => {
      const session = openSession(flags);
      const me = await whoAmI(session.client);
      if (session.out.json) return session.out.data(me);
      for (const line of whoAmILines(me, session.url, session.out.style)) session.out.line(line);
    });
  registerApproverKeyCommands(keys);
}

export async function whoAmI(client: GovernedClient): Promise<WhoAmI> {
  const { data } = await client.GET('/v1/principals/me');
  return data!.payload;
}
