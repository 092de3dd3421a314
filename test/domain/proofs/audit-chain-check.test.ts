import { randomBytes } from 'node:crypto';
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAuditSeal, type AuditSeal } from '../../../src/domain/governance/audit-seal';
import { auditChain, type AuditSealing } from '../../../src/domain/proofs/audit-chain-check';
import { CHECKPOINT_GRACE_MS } from '../../../src/domain/proofs/ledger-seal-check';
import { canonicalDigest } from '../../../src/lib/canonical-digest';
import { newId } from '../../../src/lib/ids';
import { createAuditChain } from '../../../src/store/audit-chain';
import type { StoredAuditRow } from '../../../src/store/audit.repo';

// The rules of `audit_chain` (docs/proofs.md) one by one, over audit rows written by the
// real chain writer with real keys and a real checkpoint file: what the database's holder
// can do (edit, insert, delete, rechain) is named; a retention cut is not.

const problems = (findings: { violations: { record_id: string; problem: string }[] }) =>
  findings.violations.map((v) => `${v.record_id}: ${v.problem}`);

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'audit-chain-check-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const T0 = Date.parse('2026-11-26T10:00:00.000Z');
const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString();

const content = (i: number, seconds = i) => ({
  at: at(seconds),
  actor: { key_id: 'aaaaaaaaaaaa', principal_id: 'prn_00000000000000000000000000' },
  action: 'test.made',
  target: { type: 'test', id: `t${i}` },
  before: null,
  after: { i },
  request_id: `r${i}`,
});

/** A writer over its own database name: its seal, and rows appended as the api appends them. */
async function writer(database: string, count: number, seal?: AuditSeal) {
  const sealer = seal ?? createAuditSeal({ seed: randomBytes(32), checkpointDir: dir, database });
  const rows: StoredAuditRow[] = [];
  const chain = createAuditChain<Omit<StoredAuditRow, '_id'>>({
    sealer,
    insert: async (row: StoredAuditRow) => rows.push(row),
    findById: async () => null,
  });
  for (let i = 0; i < count; i += 1) await chain.append(content(i));
  return { seal: sealer, rows, chain };
}

const sealingOf = async (seal: AuditSeal, now = new Date(T0 + 60_000)): Promise<AuditSealing> => {
  const lines = await seal.lines();
  return { acceptedKeys: seal.acceptedKeys, lines, linesAfter: lines, now };
};

/** What the holder can compute: the row edited, its digest recomputed over the published recipe. */
const recomputed = (row: StoredAuditRow, change: Partial<StoredAuditRow>): StoredAuditRow => {
  const { digest: _d, seal, ...body } = { ...row, ...change };
  return { ...body, digest: canonicalDigest(body), ...(seal ? { seal } : {}) };
};

describe('audit_chain', () => {
  it('passes chains written by several writers, each sealed and checkpointed', async () => {
    const a = await writer('db_pass', 3);
    const b = await writer('db_pass', 2, a.seal);
    const c = await writer('db_pass', 2, a.seal);
    const rows = [...a.rows, ...b.rows, ...c.rows];
    expect(new Set(rows.map((row) => row.chain_id)).size).toBe(3);
    const findings = auditChain(rows, true, await sealingOf(a.seal));
    expect(findings).toEqual({ checked: 7, violations: [] });
  });

  it('names an edited row: digest kept, or recomputed (then its seal fails and its checkpoint differs)', async () => {
    const { seal, rows } = await writer('db_edit', 3);
    const sealing = await sealingOf(seal);
    const edited = { ...rows[1], after: { i: 'forged' } };
    expect(problems(auditChain([rows[0], edited, rows[2]], true, sealing))).toEqual([
      `${rows[1]._id}: its digest does not recompute`,
    ]);
    // Rechained: the edited row's digest recomputed, and the next row's link and digest.
    const second = recomputed(rows[1], { after: { i: 'forged' } });
    const third = recomputed(rows[2], { prev_digest: second.digest });
    expect(problems(auditChain([rows[0], second, third], true, sealing))).toEqual([
      expect.stringMatching(new RegExp(`^${rows[1]._id}: its seal does not verify`)),
      expect.stringMatching(new RegExp(`^${rows[2]._id}: its seal does not verify`)),
      expect.stringMatching(
        new RegExp(`^${rows[1]._id}: the checkpoint of .* names ${rows[1]._id} with digest`),
      ),
      expect.stringMatching(
        new RegExp(`^${rows[2]._id}: the checkpoint of .* names ${rows[2]._id} with digest`),
      ),
    ]);
    // The seals stripped as well: unsealed.
    const { seal: _s, ...stripped } = second;
    expect(problems(auditChain([rows[0], stripped, rows[2]], true, sealing))).toEqual([
      `${rows[1]._id}: it is unsealed`,
      `${rows[2]._id}: prev_digest is not the digest of ${rows[1]._id}`,
      expect.stringMatching(new RegExp(`^${rows[1]._id}: the checkpoint of .* names`)),
    ]);
  });

  it('names an inserted row: unchained whatever its date, or sealed by another key', async () => {
    const { seal, rows } = await writer('db_insert', 2);
    const sealing = await sealingOf(seal);
    const legacy = { _id: newId('aud'), ...content(7, -3600) };
    const forged = { _id: newId('aud'), ...content(8, 30) };
    // No trust by date: a row dated before sealing began is named too (seal-records chains
    // the rows written before chaining existed).
    expect(problems(auditChain([legacy, ...rows, forged], true, sealing))).toEqual([
      `${legacy._id}: it is not chained (a row written before chaining existed is chained by \`seal-records\`)`,
      `${forged._id}: it is not chained, though dated after sealing began (${at(0)})`,
    ]);
    // Chained as the holder can: a third row of the chain, sealed with a key of its own.
    const other = createAuditSeal({ seed: randomBytes(32), checkpointDir: dir, database: 'x' });
    const {
      digest: _d,
      seal: _s,
      ...body
    } = { ...rows[1], _id: newId('aud'), seq: 3, prev_digest: rows[1].digest };
    const digest = canonicalDigest(body);
    const third = { ...body, digest, seal: other.seal(body._id, digest) };
    expect(problems(auditChain([...rows, third], true, sealing))).toEqual([
      expect.stringMatching(
        new RegExp(
          `^${third._id}: its seal is by key [0-9a-f]{16}…, which this service does not accept$`,
        ),
      ),
    ]);
    // A copy of a row in its own slot.
    const copy = recomputed({ ...rows[1], _id: newId('aud') }, {});
    expect(problems(auditChain([...rows, copy], true, sealing))).toEqual([
      `${copy._id}: a second row in slot ${rows[1].chain_id}:2 (also ${rows[1]._id})`,
      expect.stringMatching(new RegExp(`^${copy._id}: its seal does not verify`)),
    ]);
  });

  it('names a deleted row, in the middle or at the end, by its checkpoint; only when all was read', async () => {
    const { seal, rows } = await writer('db_delete', 4);
    const sealing = await sealingOf(seal);
    expect(problems(auditChain([rows[0], rows[2], rows[3]], true, sealing))).toEqual([
      expect.stringMatching(
        new RegExp(
          `^${rows[1]._id}: it is gone: the checkpoint of ${at(1)} names it in slot ${rows[1].chain_id}:2 .*, and no retention cut reaches it$`,
        ),
      ),
    ]);
    expect(problems(auditChain(rows.slice(0, 3), true, sealing))).toEqual([
      expect.stringMatching(new RegExp(`^${rows[3]._id}: it is gone`)),
    ]);
    expect(problems(auditChain([], true, sealing))).toHaveLength(4);
    expect(auditChain([rows[0], rows[3]], false, sealing).violations).toEqual([]);
  });

  it('passes rows a retention cut reaches, however they sit in the chain; names younger ones', async () => {
    const { seal, rows } = await writer('db_retention', 4);
    await seal.cut(at(2));
    const sealing = await sealingOf(seal);
    // Rows 1 and 2 (dated before the cutoff) pruned: the chain starts at seq 3.
    expect(auditChain(rows.slice(2), true, sealing).violations).toEqual([]);
    // Row 3 (dated at the cutoff) is not the cut's to delete.
    expect(problems(auditChain([rows[3]], true, sealing))).toEqual([
      expect.stringMatching(new RegExp(`^${rows[2]._id}: it is gone`)),
    ]);
    // A cut the check only sees in its second read of the file (a prune in between) counts.
    const before = { ...sealing, lines: sealing.lines.filter((line) => line.kind === 'row') };
    expect(auditChain(rows.slice(2), true, before).violations).toEqual([]);
    expect(problems(auditChain(rows.slice(2), true, { ...before, linesAfter: [] }))).toHaveLength(
      2,
    );
  });

  it('names an empty slot no checkpoint names, and newest rows no checkpoint reaches after the grace', async () => {
    const { seal, rows } = await writer('db_unnamed', 3);
    const within = { ...(await sealingOf(seal)), lines: [], linesAfter: [] };
    expect(problems(auditChain([rows[0], rows[2]], true, within))).toEqual([
      `${rows[0].chain_id}:2: its slot is empty and no checkpoint names it: rows are gone`,
    ]);
    expect(auditChain(rows, true, within).violations).toEqual([]);
    // A row moved far ahead: one finding for the run of empty slots, not one per slot.
    const far = recomputed(rows[2], { seq: 1e9 });
    expect(problems(auditChain([rows[0], rows[1], far], true, within))).toEqual([
      expect.stringMatching(new RegExp(`^${far._id}: its seal does not verify`)),
      `${rows[0].chain_id}:3..999999999: its slots are empty and no checkpoint names them: rows are gone`,
    ]);
    const past = { ...within, now: new Date(T0 + 2000 + CHECKPOINT_GRACE_MS + 1) };
    expect(problems(auditChain(rows, true, past))).toEqual([
      `${rows[2]._id}: no checkpoint names its chain (the checkpoint file is missing, cut or not shared)`,
    ]);
    const reached = { ...(await sealingOf(seal)), now: past.now };
    const lines = reached.lines.slice(0, 1);
    expect(problems(auditChain(rows, true, { ...reached, lines, linesAfter: lines }))).toEqual([
      `${rows[2]._id}: no checkpoint reaches it: the newest names seq 1 of chain ${rows[2].chain_id}`,
    ]);
    // One sealed row past the newest line: a writer stopped between its insert and its line.
    const crashed = reached.lines.slice(0, 2);
    expect(
      auditChain(rows, true, { ...reached, lines: crashed, linesAfter: crashed }).violations,
    ).toEqual([]);
  });

  it('names a checkpoint line not signed by an accepted key, and does not use it', async () => {
    const { seal, rows } = await writer('db_forged_line', 1);
    const [line] = await seal.lines();
    appendFileSync(
      join(dir, 'db_forged_line.audit.jsonl'),
      `${JSON.stringify({ ...line, seq: 5 })}\n${JSON.stringify({ kind: 'cut', db: 'db_forged_line', cutoff: at(99), at: at(99), key_id: line.key_id, signature: 'ab'.repeat(64) })}\n{"torn":\n`,
    );
    const sealing = await sealingOf(seal);
    expect(problems(auditChain(rows, true, sealing))).toEqual([
      expect.stringMatching(new RegExp(`^${rows[0].chain_id}:5: the line does not verify`)),
      expect.stringMatching(new RegExp(`^cut:${at(99)}: the line does not verify`)),
    ]);
    expect(sealing.lines.map((l) => l.kind)).toEqual(['row', 'row', 'cut']);
  });
});
