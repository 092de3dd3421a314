import type { DomainInfra } from '../infra';
import type { AuthContext } from '../../auth/auth-context';
import { Conflict, found, InvalidState, Unavailable } from '../../lib/errors';
import type { SessionCommand, SessionCreateRequest, SessionStepRequest } from './schemas';
import { newId } from '../../lib/ids';
import { isoNow } from '../../lib/time';
import type { SessionFold, SessionStepRecord } from '../../store/session-steps.repo';
import { stepId } from '../../store/session-steps.repo';
import type { SessionRecord } from '../../store/sessions.repo';
import { createArgsParser, type CommandArgs } from './commands';
import { describeCommands, emptyFold, foldStep } from './fold';
import { freshStepDigest, sessionIdentityDigest } from './identity';
import { appendLineage } from './lineage';
import { checkRefs, inspectObject, listObjectsStep, observeWorld } from './world-reads';

type Deps = Pick<DomainInfra, 'repos'>;
/** Steps also read the world through its cache. */
type StepDeps = Pick<DomainInfra, 'repos' | 'worldReads'>;

/** Most attempts at the next step number before answering 409 (others keep winning it). */
const MAX_STEP_ATTEMPTS = 64;

const parseArgs = createArgsParser();

/** Creates a session (every call a new one) and links it into the runtime's lineage. */
export async function createSession(deps: Deps, auth: AuthContext, body: SessionCreateRequest) {
  const runtime = await deps.repos.runtime.get();
  if (!runtime) throw new Unavailable('runtime record not initialised yet');
  const sessionId = newId('ses');
  const createdAt = isoNow();
  const mode = body.continuity_mode ?? 'preserve';
  const identity = sessionIdentityDigest(runtime.identity_digest, sessionId, createdAt);
  // The lineage link first: a session the lineage does not name would be invisible to the
  // continuity report, whereas a link whose session insert failed is reported as missing.
  const link = await appendLineage(deps, runtime.identity_digest, {
    session_id: sessionId,
    continuity_mode: mode,
    identity_digest: identity,
    created_at: createdAt,
  });
  const record = await deps.repos.sessions.insert({
    _id: sessionId,
    created_at: createdAt,
    continuity_mode: mode,
    shared_context_id: body.shared_context_id ?? null,
    identity_digest: identity,
    runtime_id: runtime.runtime_id,
    lineage_seq: link._id,
    created_by: { principal_id: auth.principalId, key_id: auth.keyId },
  });
  return toSessionView(record, null);
}

/** The session with its step count and state, confirmed against its newest step. */
export async function getSession(deps: Deps, sessionId: string) {
  const { session, newest } = await loadSession(deps, sessionId);
  return toSessionView(session, newest);
}

/** A session and its newest step (confirmed); 404 when there is no such session. */
export async function loadSession(deps: Deps, sessionId: string) {
  const session = await found(deps.repos.sessions.findById(sessionId), `session ${sessionId}`);
  const newest = await deps.repos.sessionSteps.newest(sessionId);
  return { session, newest, fold: newest?.state ?? emptyFold(session.identity_digest) };
}

/** The session as clients see it. */
export function toSessionView(session: SessionRecord, newest: SessionStepRecord | null) {
  return {
    session_id: session._id,
    created_at: session.created_at,
    continuity_mode: session.continuity_mode,
    state: newest?.state.closed ? 'closed' : 'active',
    step_count: newest?.step ?? 0,
    ...(session.shared_context_id ? { shared_context_id: session.shared_context_id } : {}),
    last_step_at: newest?.at ?? null,
  };
}

/**
 * Runs one command as the session's next step. The step number is claimed by inserting the
 * step's record at `<session_id>:<n>`, n one past the newest step this process knows; when
 * another step took n first, the newest step is read again and the step is re-run on top of
 * it. So every number has one step, each step saw exactly the steps before it, and a step
 * after a `close` cannot be written: its writer would have read the close first.
 */
export async function stepSession(
  deps: StepDeps,
  auth: AuthContext,
  sessionId: string,
  body: SessionStepRequest,
) {
  const command = body.input_packet.command;
  const args = parseArgs(command, body.input_packet.args);
  const session = await found(deps.repos.sessions.findById(sessionId), `session ${sessionId}`);
  assertActive(sessionId, await deps.repos.sessionSteps.lastKnown(sessionId));
  const world = await readWorld(deps, command, args);
  return deps.repos.sessionSteps.exclusive(sessionId, async () => {
    let base = await deps.repos.sessionSteps.lastKnown(sessionId);
    for (let attempt = 0; attempt < MAX_STEP_ATTEMPTS; attempt += 1) {
      assertActive(sessionId, base);
      const step = (base?.step ?? 0) + 1;
      const at = isoNow();
      const before = base?.state ?? emptyFold(session.identity_digest);
      const note = command === 'note' ? (args as CommandArgs['note']) : undefined;
      const record: SessionStepRecord = {
        _id: stepId(sessionId, step),
        session_id: sessionId,
        step,
        command,
        args,
        output:
          world ?? (await memoryOutput(deps, session, command, { step, at, before, base, note })),
        at,
        identity_digest: stepIdentity(session, step),
        actor: { principal_id: auth.principalId, key_id: auth.keyId },
        state: foldStep(before, {
          step,
          command,
          at,
          objects: touchedObjects(command, args),
          note,
        }),
      };
      if (await deps.repos.sessionSteps.insert(record)) return stepView(session, record);
      base = await deps.repos.sessionSteps.newestAfter(sessionId, step);
    }
    throw new Conflict('too many concurrent steps on this session; retry', {
      retryAfterSeconds: 1,
    });
  });
}

function assertActive(sessionId: string, newest: SessionStepRecord | null): void {
  if (newest?.state.closed) {
    throw new InvalidState(`session ${sessionId} is closed`, {
      extra: { state: 'closed' },
    });
  }
}

/** `preserve`: one identity for the whole session; `fresh`: a new one every step. */
export const stepIdentity = (session: SessionRecord, step: number): string =>
  session.continuity_mode === 'preserve'
    ? session.identity_digest
    : freshStepDigest(session.identity_digest, step);

/** Output of the commands that read the world (the same whichever step number they get). */
async function readWorld(
  deps: StepDeps,
  command: SessionCommand,
  args: CommandArgs[SessionCommand],
): Promise<Record<string, unknown> | undefined> {
  switch (command) {
    case 'list_objects':
      return listObjectsStep(deps, args as CommandArgs['list_objects']);
    case 'inspect_object':
      return inspectObject(deps, (args as CommandArgs['inspect_object']).object_id);
    case 'observe_world':
      return observeWorld(deps, isoNow());
    case 'note':
      await checkRefs(deps, (args as CommandArgs['note']).refs);
      return undefined;
    default:
      return undefined;
  }
}

interface StepContext {
  step: number;
  at: string;
  before: SessionFold;
  base: SessionStepRecord | null;
  note: CommandArgs['note'] | undefined;
}

/** Output of the commands that read or change the session itself. */
async function memoryOutput(
  deps: Deps,
  session: SessionRecord,
  command: SessionCommand,
  { step, at, before, base, note }: StepContext,
): Promise<Record<string, unknown>> {
  switch (command) {
    case 'note':
      return { noted: { step, text: note?.text, refs: note?.refs ?? [] }, notes: before.notes + 1 };
    case 'recall':
      return recall(deps, session, before);
    case 'summarize':
      return {
        steps: before.steps,
        by_command: before.by_command,
        notes: before.notes,
        objects_referenced: before.objects,
        first_step_at: before.first_at || null,
        last_step_at: base?.at ?? null,
        summary: `${describeCommands(before)} before this one; ${before.notes} note${before.notes === 1 ? '' : 's'}; ${before.objects.length} world object${before.objects.length === 1 ? '' : 's'} referenced.`,
      };
    case 'close':
      return { closed: true, steps: step, closed_at: at };
    default:
      return {};
  }
}

/** `preserve`: the session's newest notes, oldest first; `fresh`: nothing carries over. */
async function recall(deps: Deps, session: SessionRecord, before: SessionFold) {
  if (session.continuity_mode === 'fresh') {
    return { continuity_mode: 'fresh', carried_over: false, notes: [], total: 0 };
  }
  const records = await Promise.all(
    before.note_steps.map((n) => deps.repos.sessionSteps.find(session._id, n)),
  );
  const notes = records.flatMap((record) =>
    record
      ? [
          {
            step: record.step,
            text: String(record.args['text']),
            refs: (record.args['refs'] as string[] | undefined) ?? [],
            at: record.at,
          },
        ]
      : [],
  );
  return {
    continuity_mode: 'preserve',
    carried_over: true,
    notes,
    total: before.notes,
    memory_digest: before.memory_digest,
  };
}

function touchedObjects(command: SessionCommand, args: CommandArgs[SessionCommand]): string[] {
  if (command === 'inspect_object') return [(args as CommandArgs['inspect_object']).object_id];
  if (command === 'note') return (args as CommandArgs['note']).refs;
  return [];
}

/** The step as clients see it. */
export function stepView(session: SessionRecord, record: SessionStepRecord) {
  const preserve = session.continuity_mode === 'preserve';
  return {
    session_id: session._id,
    step: record.step,
    command: record.command,
    output: record.output,
    state: record.state.closed ? 'closed' : 'active',
    at: record.at,
    continuity: {
      identity_stable: preserve,
      identity_digest: record.identity_digest,
      steps: record.step,
      continuity_mode: session.continuity_mode,
      memory_digest: preserve ? record.state.memory_digest : null,
    },
  };
}
