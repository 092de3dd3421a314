import type { SessionStepRecord } from './session-steps.repo';

/**
 * A step as stored: its key and a few scalars as fields, everything else (arguments,
 * output, identity, actor, fold) as one JSON text. Nothing queries inside a step (reads
 * are by `_id` only), and FerretDB's cost per insert grows with the fields it converts:
 * measured, four `list_objects` steps in one `insertMany` cost it 2.4–2.7 ms of CPU as
 * documents and 0.8–1.2 ms packed (an insert of four bare `_id`s, 0.4–0.6 ms).
 */
export interface StoredStep {
  _id: string;
  session_id: string;
  step: number;
  command: string;
  at: string;
  /** JSON of `{args, output, identity_digest, actor, state}`. */
  packed: string;
}

type PackedFields = Pick<
  SessionStepRecord,
  'args' | 'output' | 'identity_digest' | 'actor' | 'state'
>;

/** The stored form of a step. */
export function packStep(record: SessionStepRecord): StoredStep {
  const fields: PackedFields = {
    args: record.args,
    output: record.output,
    identity_digest: record.identity_digest,
    actor: record.actor,
    state: record.state,
  };
  const { _id, session_id, step, command, at } = record;
  return { _id, session_id, step, command, at, packed: JSON.stringify(fields) };
}

/** A step as read, packed or (written before packing) a document of its own. */
export function unpackStep(stored: StoredStep | SessionStepRecord): SessionStepRecord {
  if (!('packed' in stored)) return stored;
  const fields = JSON.parse(stored.packed) as PackedFields;
  return {
    _id: stored._id,
    session_id: stored.session_id,
    step: stored.step,
    command: stored.command,
    args: fields.args,
    output: fields.output,
    at: stored.at,
    identity_digest: fields.identity_digest,
    actor: fields.actor,
    state: fields.state,
  };
}
