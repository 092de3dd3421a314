import { createHash } from 'node:crypto';

/** One record a witness read: its kind, id and version (for records that never change: 1). */
export interface WitnessInput {
  kind: string;
  id: string;
  version: string | number;
}

/** The time window a witness read. */
export interface WitnessWindow {
  from: string;
  to: string;
}

/** What every witness payload carries so it can be reproduced (docs/witnesses.md). */
export interface WitnessHeader {
  witness: string;
  computed_at: string;
  window: WitnessWindow;
  inputs: { counts: Record<string, number>; digest: string; bounded: boolean };
}

/** Most records of one kind a witness reads; past it the readout says `bounded`. */
export const MAX_WITNESS_RECORDS = 10_000;

/**
 * `inputs.digest`: sha256 over the sorted lines `<kind>:<id>@<version>` of every record the
 * witness read, so the same records give the same digest and a new or changed one changes it
 * (docs/witnesses.md). Counts read as counts enter as `<kind>#<n>`.
 */
export function inputsOf(
  records: readonly WitnessInput[],
  tallies: Record<string, number> = {},
  bounded = false,
): WitnessHeader['inputs'] {
  const counts: Record<string, number> = {};
  const lines = records.map((record) => {
    counts[record.kind] = (counts[record.kind] ?? 0) + 1;
    return `${record.kind}:${record.id}@${record.version}`;
  });
  for (const [kind, n] of Object.entries(tallies)) {
    counts[kind] = n;
    lines.push(`${kind}#${n}`);
  }
  lines.sort();
  const digest = createHash('sha256').update(lines.join('\n')).digest('hex');
  return { counts, digest: `sha256:${digest}`, bounded };
}

/** The window of `seconds` ending now. */
export function windowEndingNow(seconds: number, now = new Date()): WitnessWindow {
  return { from: new Date(now.getTime() - seconds * 1000).toISOString(), to: now.toISOString() };
}
