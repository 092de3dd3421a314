import { MongoClient } from 'mongodb';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ledgerDigestHolds, sealProblem } from '../../src/domain/external-actions/ledger-seal';
import {
  auditLineProblem,
  auditSealMessage,
  createAuditSeal,
  type AuditSeal,
} from '../../src/domain/governance/audit-seal';
import { createAuditChain } from '../../src/store/audit-chain';
import { createAuditRepo, type AuditRow, type StoredAuditRow } from '../../src/store/audit.repo';

type Content = Omit<AuditRow, '_id'>;

// The audit's writer (src/store/audit-chain.ts): each row the next of this process's chain,
// digested, sealed and checkpointed; appends in call order; a failed insert never forks a
// chain. Over an in-memory store and a real checkpoint file.

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'audit-chain-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const sealOf = (database: string): AuditSeal =>
  createAuditSeal({ seed: randomBytes(32), checkpointDir: dir, database });

const content = (i: number): Content => ({
  at: new Date(Date.parse('2026-11-26T10:00:00.000Z') + i * 1000).toISOString(),
  actor: { key_id: 'aaaaaaaaaaaa', principal_id: 'prn_00000000000000000000000000' },
  action: 'test.made',
  target: { type: 'test', id: `t${i}` },
  before: null,
  after: { i },
  request_id: `r${i}`,
});

/** A store that keeps rows by id; `failNext` makes the next insert throw (after or instead). */
function memoryStore() {
  const rows = new Map<string, StoredAuditRow>();
  const store = {
    rows,
    failNext: null as null | 'landed' | 'lost',
    async insert(row: StoredAuditRow) {
      const fail = store.failNext;
      store.failNext = null;
      if (fail !== 'lost') rows.set(row._id, row);
      if (fail) throw new Error('connection reset');
    },
    findById: async (id: string) => rows.get(id) ?? null,
  };
  return store;
}

describe('the audit chain', () => {
  it('chains, seals and checkpoints each row, in call order, however many are in flight', async () => {
    const seal = sealOf('db_chain');
    const store = memoryStore();
    const chain = createAuditChain<Content>({ sealer: seal, ...store });
    const written = await Promise.all([0, 1, 2, 3, 4].map((i) => chain.append(content(i))));
    expect(written.map((row) => [row.seq, row.target.id])).toEqual([
      [1, 't0'],
      [2, 't1'],
      [3, 't2'],
      [4, 't3'],
      [5, 't4'],
    ]);
    expect(new Set(written.map((row) => row.chain_id)).size).toBe(1);
    written.forEach((row, i) => {
      expect(row._id).toMatch(/^aud_[0-9A-Z]{26}$/);
      expect(row.prev_digest).toBe(i === 0 ? null : written[i - 1].digest);
      expect(ledgerDigestHolds(row)).toBe(true);
      expect(sealProblem(seal.acceptedKeys, row, auditSealMessage)).toBeNull();
      expect(store.rows.get(row._id)).toEqual(row);
    });
    const lines = await seal.lines();
    expect(
      lines.map((line) => line.kind === 'row' && [line.seq, line.audit_id, line.head]),
    ).toEqual(written.map((row) => [row.seq, row._id, row.digest]));
    expect(lines.every((line) => auditLineProblem(seal.acceptedKeys, line) === null)).toBe(true);
  });

  it('digests what the store keeps: a field set to undefined is not part of the row', async () => {
    const store = memoryStore();
    const chain = createAuditChain<Content>({ sealer: sealOf('db_undefined'), ...store });
    const row = await chain.append({ ...content(0), after: { kept: 1, dropped: undefined } });
    expect(row.after).toEqual({ kept: 1 });
    expect(Object.keys(row.after!)).toEqual(['kept']);
    expect(ledgerDigestHolds(row)).toBe(true);
  });

  it('goes on after a failed insert that landed; starts a new chain after one that did not', async () => {
    const seal = sealOf('db_failures');
    const store = memoryStore();
    const chain = createAuditChain<Content>({ sealer: seal, ...store });
    const first = await chain.append(content(0));
    store.failNext = 'landed';
    const second = await chain.append(content(1));
    expect([second.chain_id, second.seq, second.prev_digest]).toEqual([
      first.chain_id,
      2,
      first.digest,
    ]);
    store.failNext = 'lost';
    await expect(chain.append(content(2))).rejects.toThrow('connection reset');
    const fourth = await chain.append(content(3));
    expect(fourth.chain_id).not.toBe(first.chain_id);
    expect([fourth.seq, fourth.prev_digest]).toEqual([1, null]);
    expect(store.rows.size).toBe(3);
  });

  it('a process without the seal writes no audit', async () => {
    const client = new MongoClient('mongodb://127.0.0.1:1/', { serverSelectionTimeoutMS: 1 });
    const repo = createAuditRepo(client.db('never_connected'));
    await expect(repo.record(content(0))).rejects.toThrow('this process has no audit seal');
    await expect(repo.deleteOlderThan('2026-01-01T00:00:00.000Z')).rejects.toThrow(
      'this process has no audit seal',
    );
  });
});
