import { encodeTime } from 'ulid';
import { CROCKFORD, digestChars } from '../../lib/ids';
import type { Repos } from '../../store';
import type { WorldHistoryEvent } from '../../store/world-history.repo';
import type { WorldObject } from '../../store/world-objects.repo';
import type { WorldRelationship } from '../../store/world-relationships.repo';

/**
 * The demo world a fresh database starts with (docs/world.md): a small payments platform,
 * its team, data and documents. Ids are deterministic, so api instances booting at once all
 * write the same documents and the unique `_id` lets exactly one insert of each land.
 */
const DEMO_OBJECTS = [
  {
    key: 'platform-team',
    kind: 'team',
    name: 'Platform team',
    attributes: { on_call: 'ada', channel: '#platform', members: 5 },
  },
  {
    key: 'payments-api',
    kind: 'service',
    name: 'Payments API',
    attributes: { tier: 'critical', status: 'healthy', version: '2.4.1', region: 'eu-west-1' },
  },
  {
    key: 'ledger-worker',
    kind: 'service',
    name: 'Ledger worker',
    attributes: { tier: 'high', status: 'degraded', version: '1.9.0', replicas: 2 },
  },
  {
    key: 'transactions',
    kind: 'dataset',
    name: 'Transactions',
    attributes: { store: 'postgres', rows: 1_284_512, retention_days: 365, contains_pii: true },
  },
  {
    key: 'incident-runbook',
    kind: 'document',
    name: 'Payments incident runbook',
    attributes: { status: 'published', owner: 'ada', revision: 7 },
  },
  {
    key: 'quarterly-report',
    kind: 'document',
    name: 'Quarterly payments report',
    attributes: { status: 'draft', owner: 'grace' },
  },
] as const;

/** `[from, kind, to]` by object key. */
const DEMO_RELATIONSHIPS = [
  ['platform-team', 'owns', 'payments-api'],
  ['platform-team', 'owns', 'ledger-worker'],
  ['payments-api', 'depends_on', 'ledger-worker'],
  ['payments-api', 'reads_from', 'transactions'],
  ['ledger-worker', 'writes_to', 'transactions'],
  ['incident-runbook', 'documents', 'payments-api'],
  ['quarterly-report', 'derived_from', 'transactions'],
] as const;

/** The time part of every demo id (2025-01-01T00:00:00Z): before any id minted at run time. */
const DEMO_EPOCH_MS = Date.UTC(2025, 0, 1);

/**
 * A demo id in the shape `newId` gives (prefix + 26-char ULID): a fixed time part, two
 * characters of sequence (so ids sort in definition order) and 14 of a digest of the name.
 */
export function demoId(prefix: 'obj' | 'rel' | 'evt', seq: number, name: string): string {
  const tail = digestChars(`demo-world/v1/${prefix}/${name}`, 14);
  const sequence = `${CROCKFORD[Math.floor(seq / 32) % 32]}${CROCKFORD[seq % 32]}`;
  return `${prefix}_${encodeTime(DEMO_EPOCH_MS, 10)}${sequence}${tail}`;
}

/** Every document of the demo world, stamped `now`; the last event is written last. */
export function demoWorld(now: string) {
  const objectId = new Map<string, string>(
    DEMO_OBJECTS.map((o, i) => [o.key, demoId('obj', i, o.key)]),
  );
  const idOf = (key: string): string => objectId.get(key)!;
  const objects: WorldObject[] = DEMO_OBJECTS.map((o) => ({
    _id: idOf(o.key),
    kind: o.kind,
    name: o.name,
    attributes: { ...o.attributes },
    external_state: {},
    version: 1,
    created_at: now,
    updated_at: now,
  }));
  const relationships: WorldRelationship[] = DEMO_RELATIONSHIPS.map(([from, kind, to], i) => ({
    _id: demoId('rel', i, `${from}/${kind}/${to}`),
    from: idOf(from),
    to: idOf(to),
    kind,
    created_at: now,
  }));
  const events: WorldHistoryEvent[] = [
    ...objects.map((o, i) => ({
      _id: demoId('evt', i, `object/${o._id}`),
      kind: 'object.created',
      object_id: o._id,
      at: now,
      change: { after: { kind: o.kind, name: o.name, attributes: o.attributes }, version: 1 },
    })),
    ...relationships.map((r, i) => ({
      _id: demoId('evt', objects.length + i, `relationship/${r._id}`),
      kind: 'relationship.created',
      object_id: r.from,
      object_refs: [r.from, r.to],
      at: now,
      change: { after: { relationship_id: r._id, from: r.from, kind: r.kind, to: r.to } },
    })),
  ];
  return { objects, relationships, events };
}

type SeedRepos = Pick<Repos, 'worldObjects' | 'worldRelationships' | 'worldHistory'>;

/**
 * Seeds the demo world into a fresh database; returns how many documents this call wrote.
 * Idempotent and safe when several instances run it at once: every write is an insert of a
 * deterministic id (a duplicate is simply skipped), and the last event goes in last, so
 * once it exists the seed is complete and later boots stop after one read by `_id`. A
 * database whose world already holds other objects is not fresh and is left alone; a seed
 * interrupted half way (its first object exists) is completed.
 */
export async function seedDemoWorld(repos: SeedRepos, now: string): Promise<number> {
  const { objects, relationships, events } = demoWorld(now);
  const last = events[events.length - 1];
  if (await repos.worldHistory.exists(last._id)) return 0;
  const started = await repos.worldObjects.exists(objects[0]._id);
  if (!started && !(await repos.worldObjects.isEmpty())) return 0;
  const written = [
    ...(await Promise.all(objects.map((o) => repos.worldObjects.insertOnce(o)))),
    ...(await Promise.all(relationships.map((r) => repos.worldRelationships.insertOnce(r)))),
    ...(await Promise.all(events.slice(0, -1).map((e) => repos.worldHistory.insertOnce(e)))),
    await repos.worldHistory.insertOnce(last),
  ];
  return written.filter(Boolean).length;
}
