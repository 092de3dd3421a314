import { createHash } from 'node:crypto';
import stringify from 'safe-stable-stringify';
import type { FieldChange, RepairFinding, RepairPlan } from '../../store/repairs.repo';
import type { WorldHistoryEvent } from '../../store/world-history.repo';
import type { WorldObject } from '../../store/world-objects.repo';
import type { ExternalState } from '../../store/world-external-state.repo';
import {
  emptyMerged,
  mergeEvent,
  type MergedFields,
  type MergeEvent,
} from '../external-events/merge';
import type { RepairStrategy } from './schemas';

/**
 * Diagnosis and planning of repairs (docs/repair.md): pure functions
 * of the object and its durable records, so the repair workflow, `repairability` and the
 * tests all judge an object the same way.
 */

/** History kinds that set an object's attributes, and the versions they write. */
export const OBJECT_CREATED = 'object.created';
export const OBJECT_UPDATED = 'object.updated';
export const OBJECT_REPAIRED = 'object.repaired';

/** What a repair reads about one object. */
export interface RepairEvidence {
  object: WorldObject;
  /** The object's history events (any order). */
  history: WorldHistoryEvent[];
  /** The newest committed external state of its chain (null: it never had one). */
  externalHead: ExternalState | null;
  /** Its ingested external events (`reconcile_external` only). */
  events?: MergeEvent[];
  /** The attributes a checkpoint holds for it (`restore_last_good` with a checkpoint). */
  checkpointCopy?: { checkpoint_id: string; attributes: Record<string, unknown> } | null;
}

export interface RepairOptions {
  to_version?: number | null;
}

/** The good state a strategy found, when it differs from what is stored. */
interface Target {
  attributes: Record<string, unknown> | null;
  external: { base_revision: number; state: RepairedExternalState } | null;
  source: string;
}

/** The external state a repair writes (its revision and conditions are set on apply). */
export type RepairedExternalState = MergedFields;

export interface Diagnosis {
  findings: RepairFinding[];
  /** Null: nothing to change (`no_action_needed`). */
  plan: RepairPlan | null;
}

/** A diagnosis that cannot go ahead (a version not in history, no checkpoint copy). */
export class RepairNotPossible extends Error {}

const same = (a: unknown, b: unknown): boolean => stringify(a) === stringify(b);

/**
 * The object's attributes at each version, replayed from its history: `object.created`
 * gives version 1, each `object.updated` sets its changed fields, each `object.repaired`
 * sets the whole attribute set it wrote. Versions without an event are absent.
 */
export function replayVersions(history: readonly WorldHistoryEvent[]) {
  const writes = history
    .filter((event) => event.kind === OBJECT_CREATED || versionOf(event) !== null)
    .sort((a, b) => (versionOf(a) ?? 1) - (versionOf(b) ?? 1));
  const versions = new Map<number, Record<string, unknown>>();
  let current: Record<string, unknown> | null = null;
  for (const event of writes) {
    const change = event.change;
    if (event.kind === OBJECT_CREATED) {
      const after = change['after'] as { attributes?: Record<string, unknown> } | undefined;
      current = { ...(after?.attributes ?? {}) };
      versions.set(1, current);
      continue;
    }
    if (!current) continue;
    const version = versionOf(event)!;
    if (event.kind === OBJECT_REPAIRED && change['attributes']) {
      current = { ...(change['attributes'] as Record<string, unknown>) };
    } else {
      current = { ...current };
      const changes = (change['changes'] ?? {}) as Record<string, FieldChange>;
      for (const [field, fieldChange] of Object.entries(changes)) {
        if (fieldChange.removed) delete current[field];
        else current[field] = fieldChange.to;
      }
    }
    versions.set(version, current);
  }
  return versions;
}

function versionOf(event: WorldHistoryEvent): number | null {
  if (event.kind !== OBJECT_UPDATED && event.kind !== OBJECT_REPAIRED) return null;
  const version = event.change['version'];
  return typeof version === 'number' ? version : null;
}

/** Diagnoses the object under `strategy` and plans what would make it good. */
export function diagnose(
  strategy: RepairStrategy,
  evidence: RepairEvidence,
  options: RepairOptions = {},
): Diagnosis {
  const findings: RepairFinding[] = [];
  const target =
    strategy === 'revalidate'
      ? revalidate(evidence, findings)
      : strategy === 'reconcile_external'
        ? reconcileExternal(evidence, findings)
        : restoreLastGood(evidence, options, findings);
  return { findings, plan: target ? planOf(evidence, target) : null };
}

function revalidate(evidence: RepairEvidence, findings: RepairFinding[]): Target | null {
  const { object, externalHead } = evidence;
  const versions = replayVersions(evidence.history);
  const newest = Math.max(0, ...versions.keys());
  let attributes: Record<string, unknown> | null = null;
  let source = '';
  if (newest === 0) {
    findings.push({
      check: 'history_replay',
      ok: true,
      detail: 'no creation event in its history: nothing to replay against',
    });
  } else {
    const replayed = versions.get(newest)!;
    const ok = newest === object.version && same(replayed, object.attributes);
    findings.push({
      check: 'history_replay',
      ok,
      detail: ok
        ? `version ${object.version} matches the replay of its history`
        : `stored version ${object.version} differs from the replay of its history (version ${newest})`,
    });
    if (!ok) [attributes, source] = [replayed, `history@${newest}`];
  }
  const external = externalFinding(object, externalHead, findings);
  if (!attributes && !external) return null;
  return {
    attributes,
    external,
    source: [source, external && `external@${external.base_revision}`].filter(Boolean).join('+'),
  };
}

/** The projection against the chain head, and the head's conditions. */
function externalFinding(
  object: WorldObject,
  head: ExternalState | null,
  findings: RepairFinding[],
): Target['external'] {
  const projected = object.external_state as Partial<ExternalState> | undefined;
  if (!head) {
    findings.push({ check: 'external_state', ok: true, detail: 'no external state' });
    return null;
  }
  const ok = projected?.revision === head.revision && same(projected?.fields, head.fields);
  findings.push({
    check: 'external_state',
    ok,
    detail: ok
      ? `the object shows revision ${head.revision} of its external-state chain`
      : `the object shows ${projected?.revision === undefined ? 'no external state' : `revision ${projected.revision}`} with other fields than revision ${head.revision} of its chain`,
  });
  const failing = head.conditions.filter((condition) => condition.status !== 'True');
  findings.push({
    check: 'external_conditions',
    ok: failing.length === 0,
    detail:
      failing.length === 0
        ? 'every condition is True'
        : failing.map((c) => `${c.type}=${c.status} (${c.reason})`).join('; '),
  });
  return ok ? null : { base_revision: head.revision, state: headState(head) };
}

const headState = (head: ExternalState): RepairedExternalState => ({
  fields: head.fields,
  provenance: head.provenance,
  generation: head.generation,
  last_event_id: head.last_event_id,
});

function reconcileExternal(evidence: RepairEvidence, findings: RepairFinding[]): Target | null {
  const events = evidence.events ?? [];
  let merged = emptyMerged();
  for (const event of events) merged = mergeEvent(merged, event).state;
  const head = evidence.externalHead;
  const current = head?.fields ?? {};
  const ok =
    same(merged.fields, current) &&
    same(merged.fields, evidence.object.external_state?.['fields'] ?? {});
  findings.push({
    check: 'external_rebuild',
    ok,
    detail: ok
      ? `the external state matches the merge of its ${events.length} ingested event(s)`
      : `the merge of its ${events.length} ingested event(s) differs from its external state (revision ${head?.revision ?? 0})`,
  });
  if (ok) return null;
  return {
    attributes: null,
    external: {
      base_revision: head?.revision ?? 0,
      state: {
        fields: merged.fields,
        provenance: merged.provenance,
        generation: Math.max(merged.generation, (head?.generation ?? 0) + 1),
        last_event_id: merged.last_event_id,
      },
    },
    source: `events:${events.length}`,
  };
}

function restoreLastGood(
  evidence: RepairEvidence,
  options: RepairOptions,
  findings: RepairFinding[],
): Target | null {
  const { object } = evidence;
  let good: Record<string, unknown> | undefined;
  let source: string;
  if (evidence.checkpointCopy) {
    good = evidence.checkpointCopy.attributes;
    source = `checkpoint:${evidence.checkpointCopy.checkpoint_id}`;
  } else {
    const version = options.to_version ?? object.version - 1;
    if (version < 1) {
      findings.push({
        check: 'good_version',
        ok: true,
        detail: `version ${object.version} is its first: there is no earlier version`,
      });
      return null;
    }
    good = replayVersions(evidence.history).get(version);
    if (!good) {
      throw new RepairNotPossible(
        `version ${version} of ${object._id} is not in its history (versions 1 to ${object.version})`,
      );
    }
    source = `history@${version}`;
  }
  const ok = same(good, object.attributes);
  findings.push({
    check: 'good_version',
    ok,
    detail: ok ? `its attributes already equal ${source}` : `its attributes differ from ${source}`,
  });
  return ok ? null : { attributes: good, external: null, source };
}

/** The plan that writes `target` over the object as it is now, with its digest. */
function planOf(evidence: RepairEvidence, target: Target): RepairPlan {
  const { object } = evidence;
  const stored = (object.external_state?.['fields'] ?? {}) as Record<string, unknown>;
  const body: Omit<RepairPlan, 'digest'> = {
    object_id: object._id,
    base_version: object.version,
    attributes: target.attributes,
    external_state: target.external && {
      base_revision: target.external.base_revision,
      ...target.external.state,
    },
    diff: {
      attributes: target.attributes ? fieldDiff(object.attributes, target.attributes) : {},
      external_state: target.external ? fieldDiff(stored, target.external.state.fields) : {},
    },
    source: target.source,
  };
  return { ...body, digest: `sha256:${sha256(stringify(body) ?? '')}` };
}

/** Field by field, what going from `from` to `to` changes (fields that go: `removed`). */
export function fieldDiff(
  from: Record<string, unknown>,
  to: Record<string, unknown>,
): Record<string, FieldChange> {
  const diff: Record<string, FieldChange> = {};
  for (const field of new Set([...Object.keys(from), ...Object.keys(to)])) {
    if (!(field in to)) diff[field] = { from: from[field], to: null, removed: true };
    else if (!same(from[field], to[field]))
      diff[field] = { from: from[field] ?? null, to: to[field] };
  }
  return diff;
}

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');
