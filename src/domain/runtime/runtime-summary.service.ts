import type { DomainInfra } from '../infra';
import type { RuntimeSessionQuery } from './schemas';
import { describeCommands } from '../sessions/fold';
import { loadSession } from '../sessions/sessions.service';
import { runtimeRecord } from './continuity.service';

type Deps = Pick<DomainInfra, 'repos'>;

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

const MODE_MEANING = {
  preserve: 'identity and memory carried across steps',
  fresh: 'each step starts from no memory',
} as const;

/**
 * The build-safe runtime summary: state and one paragraph, from the runtime record and the
 * lineage head (no secrets, no internals); with `session_id`, the session's state and what
 * its steps did, from its newest step. Reads only: inspecting creates nothing.
 */
export async function getRuntimeSummary(deps: Deps, query: RuntimeSessionQuery) {
  const runtime = await runtimeRecord(deps);
  if (query.session_id) {
    const { session, newest, fold } = await loadSession(deps, query.session_id);
    const state = fold.closed ? 'closed' : 'active';
    const activity =
      fold.steps === 0
        ? 'has taken no steps yet'
        : `after ${describeCommands(fold)}; ${plural(fold.notes, 'note')} taken, ${plural(fold.objects.length, 'world object')} referenced; last step ${fold.steps} (${newest?.command}) at ${newest?.at}`;
    return {
      session_id: session._id,
      state,
      summary: `Session ${session._id} (${session.continuity_mode}: ${MODE_MEANING[session.continuity_mode]}), created ${session.created_at}, is ${state} ${activity}.`,
      facts: {
        continuity_mode: session.continuity_mode,
        identity_stable: session.continuity_mode === 'preserve',
        steps: fold.steps,
        by_command: fold.by_command,
        notes: fold.notes,
        objects_referenced: fold.objects.length,
        created_at: session.created_at,
        last_step_at: newest?.at ?? null,
      },
    };
  }
  const head = await deps.repos.sessions.lineageHead();
  const sessions = head?.sessions ?? 0;
  const preserved = head?.preserved ?? 0;
  const latest = head ? `; newest ${head.session_id}, created ${head.created_at}` : '';
  return {
    state: 'active',
    summary: `Runtime ${runtime.runtime_id} is active since ${runtime.created_at} under identity ${runtime.identity_digest.slice(0, 16)}…; ${plural(sessions, 'session')} in its lineage (${preserved} preserve, ${sessions - preserved} fresh)${latest}.`,
    facts: {
      runtime_id: runtime.runtime_id,
      since: runtime.created_at,
      identity_digest: runtime.identity_digest,
      sessions,
      preserved,
      fresh: sessions - preserved,
      latest_session_id: head?.session_id ?? null,
      latest_session_at: head?.created_at ?? null,
    },
  };
}
