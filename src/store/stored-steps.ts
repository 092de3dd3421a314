/**
 * What a session has done up to and including one step: a fold over steps 1..`steps`,
 * carried in every step record so the newest record alone describes the session.
 */
export interface SessionFold {
  /** Steps taken, this one included. */
  steps: number;
  /** True once a `close` step has been taken (it is then the last step). */
  closed: boolean;
  /** Steps per command. */
  by_command: Record<string, number>;
  /** Notes taken. */
  notes: number;
  /** Step numbers of the newest notes (at most `NOTE_WINDOW`), oldest first. */
  note_steps: number[];
  /** World objects the session has inspected or referenced (newest last, bounded). */
  objects: string[];
  /** Hash chain over the notes: the session's memory, as a digest. */
  memory_digest: string;
  /** When the first step was taken. */
  first_at: string;
}

/** One step of a session: written once, by one insert, and never changed. */
export interface SessionStepRecord {
  /** `<session_id>:<step>`: the unique `_id` is what makes a step number single-owner. */
  _id: string;
  session_id: string;
  step: number;
  command: string;
  args: Record<string, unknown>;
  output: Record<string, unknown>;
  at: string;
  /** The identity digest this step ran under. */
  identity_digest: string;
  actor: { principal_id: string; key_id: string };
  /** The session after this step. */
  state: SessionFold;
}

/**
 * A step as stored: its key and a few scalars as fields, everything else (arguments,
 * output, identity, actor, fold) as one JSON text. Nothing queries inside a step (reads
 * are by `_id` only), and FerretDB's cost per insert grows with the fields it converts: a
 * packed step costs it a fraction of a step stored as a document.
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

/** A step as read. */
export function unpackStep(stored: StoredStep): SessionStepRecord {
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
