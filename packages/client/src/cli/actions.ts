import type { Command } from 'commander';
import { actionDetails, actionTable } from './action-view';
import { readAction, readRefusals, report } from './action-read';
import { claimedPrincipals } from './action-words';
import type { DecideFlags } from './decide';
import { UnwantedEndError } from './fail';
import { pollUntilDone } from './poll';
import {
  countFlag,
  firstItems,
  openSession,
  watchTiming,
  withCommonOptions,
  withWatchOptions,
  type CommonFlags,
  type WatchFlags,
} from './session';
import { namesFor, namesOf } from './names';
import { FINAL_ACTION_STATUSES, type ActionSummary } from './types';

interface ListFlags extends CommonFlags {
  awaitingMe?: boolean;
  status?: string;
  kind?: string;
  limit?: string;
}

/** `gr actions …`: list, show, approve, reject, execute, watch. */
export function registerActionCommands(program: Command): void {
  const actions = program.command('actions').description('approval-gated outbound actions');

  withCommonOptions(actions.command('list'))
    .description('actions, newest first')
    .option('--awaiting-me', 'only those you may approve now')
    .option('--status <status>', 'only those in this status (awaiting_approval, executed, …)')
    .option('--kind <kind>', 'only this action kind (world.update_object, webhook.post, notify, …)')
    .option('--limit <n>', 'at most this many (default 50)')
    .action(async (flags: ListFlags) => {
      const session = openSession(flags);
      const limit = countFlag('--limit', flags.limit, 50);
      const query = {
        limit: Math.min(limit, 500),
        ...(flags.awaitingMe ? { awaiting_me: true } : {}),
        ...(flags.status ? { status: flags.status as ActionSummary['status'] } : {}),
        ...(flags.kind ? { action_kind: flags.kind as ActionSummary['action_kind'] } : {}),
      };
      const found = await firstItems(
        session.client.paginate('/v1/external-actions', { query }),
        limit,
      );
      const { out } = session;
      if (out.json) return out.data(found);
      if (found.length === 0) return out.line('no actions');
      const objects = found.flatMap((a) => {
        const id = (a.target as { world_object_ref?: string }).world_object_ref;
        return id ? [id] : [];
      });
      const names = await namesFor(session.client, { objects });
      for (const line of actionTable(found, out.style, names)) out.line(line);
    });

  withCommonOptions(actions.command('show').argument('<action_id>'))
    .description(
      'one action: its target and plan (diff), rule, approvals, refused decisions, window and Temporal link',
    )
    .action(async (id: string, flags: CommonFlags) => {
      const session = openSession(flags);
      const action = await readAction(session, id);
      if (session.out.json) return session.out.data(action);
      const refusals = await readRefusals(session, action);
      const names = await namesOf(session.client, action, claimedPrincipals(refusals ?? []));
      const { style } = session.out;
      for (const line of actionDetails(action, style, Date.now(), names, refusals)) {
        session.out.line(line);
      }
    });

  for (const decision of ['approve', 'reject'] as const) {
    withCommonOptions(actions.command(decision).argument('<action_id>'))
      .description(`${decision} an action, bound to the plan digest it shows`)
      .option('--reason <text>', 'why (kept in the ledger; a rule may require it)')
      .option('--digest <plan_digest>', 'the plan digest you reviewed (default: the current one)')
      .option('-y, --yes', 'do not ask for confirmation on a terminal')
      .option(
        '--signing-key <file>',
        'sign with this Ed25519 private key (else GR_SIGNING_KEY, else the profile)',
      )
      .action(async (id: string, flags: DecideFlags) => {
        const session = openSession(flags);
        // Loaded here: signing (node:crypto) and the terminal prompt are only a decision's,
        // and every other command starts faster without them (bench/results/client.md).
        const { decide } = await import('./decide');
        await decide(session, decision, id, flags);
      });
  }

  withCommonOptions(actions.command('execute').argument('<action_id>'))
    .description('execute an approved action (once its wait is over)')
    .action(async (id: string, flags: CommonFlags) => {
      const session = openSession(flags);
      const { data } = await session.client.POST('/v1/external-actions/{action_id}/execute', {
        params: { path: { action_id: id } },
        body: {},
      });
      const action = data!.payload;
      report(session, action, session.out.json ? new Map() : await namesOf(session.client, action));
    });

  withWatchOptions(withCommonOptions(actions.command('watch').argument('<action_id>')))
    .description('follow an action until a final state (exit 0 executed, 3 any other end)')
    .action(async (id: string, flags: WatchFlags) => {
      const session = openSession(flags);
      const { out } = session;
      const action = await pollUntilDone({
        read: () => readAction(session, id),
        done: (a) => FINAL_ACTION_STATUSES.has(a.status),
        key: (a) => `${a.status} ${a.approvals.length}`,
        onChange: (a) => {
          if (!out.json)
            out.line(
              `${new Date().toISOString().slice(11, 19)}  ${out.style.status(a.status)}  approvals ${a.approvals.length}`,
            );
        },
        ...watchTiming(flags),
        label: `action ${id}`,
      });
      if (out.json) out.data(action);
      if (action.status !== 'executed') {
        throw new UnwantedEndError(`action ${id} ended ${action.status}`);
      }
    });
}
