import { randomBytes } from 'node:crypto';
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createLedgerSeal,
  type LedgerSeal,
} from '../../../src/domain/external-actions/ledger-seal';
import { actionLedgerChain, chainsByAction } from '../../../src/domain/proofs/checks';
import {
  actionsMatchLedger,
  CHECKPOINT_GRACE_MS,
  PROJECTION_GRACE_MS,
  type Sealing,
} from '../../../src/domain/proofs/ledger-seal-check';
import { canonicalDigest } from '../../../src/lib/canonical-digest';
import type { ActionLedgerEntry, ActionRecord } from '../../../src/store/external-actions.repo';
import type { ActionDecision } from '../../../src/workflows/external-action.contract';

// The seal, checkpoint and projection rules of `action_ledger_chain` and
// `actions_match_ledger` (docs/proofs.md), over ledgers built and sealed here with real keys
// and a real checkpoint file.

const problems = (findings: { violations: { record_id: string; problem: string }[] }) =>
  findings.violations.map((v) => `${v.record_id}: ${v.problem}`);

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-seal-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const sealOf = (database: string, seed = randomBytes(32)): LedgerSeal =>
  createLedgerSeal({ seed, checkpointDir: dir, database });

const T0 = Date.parse('2026-11-26T10:00:00.000Z');
const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString();

/** An action's ledger chained as the recorder chains it, sealed by `seal` unless null. */
function ledger(
  actionId: string,
  events: { event: string; status?: string; detail?: Record<string, unknown> }[],
  seal: LedgerSeal | null,
): ActionLedgerEntry[] {
  const entries: ActionLedgerEntry[] = [];
  events.forEach(({ event, status, detail }, index) => {
    const body = {
      _id: `${actionId}:${index + 1}`,
      action_id: actionId,
      seq: index + 1,
      at: at(index),
      event,
      status: (status ?? event) as ActionLedgerEntry['status'],
      action_kind: 'notify' as const,
      shared_context_id: null,
      actor: null,
      detail: detail ?? {},
      prev_digest: entries[index - 1]?.digest ?? null,
    };
    const digest = canonicalDigest(body);
    entries.push({ ...body, digest, ...(seal ? { seal: seal.seal(body._id, digest) } : {}) });
  });
  return entries;
}

/** Checkpoints every entry as its own batch, as the recorder does for one-entry batches. */
const checkpointEach = async (seal: LedgerSeal, entries: ActionLedgerEntry[]) => {
  for (const entry of entries) {
    await seal.checkpoint({
      action_id: entry.action_id,
      from_seq: entry.seq,
      seq: entry.seq,
      head: entry.digest,
    });
  }
};

const sealingOf = async (seal: LedgerSeal, now = new Date(T0 + 60_000)): Promise<Sealing> => ({
  acceptedKeys: seal.acceptedKeys,
  checkpoints: await seal.checkpoints(),
  now,
});

describe('action_ledger_chain with seals and checkpoints', () => {
  it('passes sealed chains their checkpoints reach', async () => {
    const seal = sealOf('db_pass');
    const entries = ledger('act_a', [{ event: 'proposed' }, { event: 'approved' }], seal);
    await checkpointEach(seal, entries);
    expect(actionLedgerChain(entries, true, await sealingOf(seal)).violations).toEqual([]);
  });

  it('names a seal by a key this service does not accept, and one that does not verify', async () => {
    const seal = sealOf('db_foreign');
    const foreign = sealOf('db_foreign_other');
    const [first] = ledger('act_a', [{ event: 'proposed' }], foreign);
    const [, second] = ledger('act_a', [{ event: 'proposed' }, { event: 'approved' }], seal);
    const forged = { ...second, seal: { ...second.seal!, signature: 'ab'.repeat(64) } };
    const findings = actionLedgerChain([first, forged], true, await sealingOf(seal));
    expect(problems(findings)).toEqual([
      expect.stringMatching(
        /^act_a:1: its seal is by key [0-9a-f]{16}…, which this service does not accept$/,
      ),
      expect.stringMatching(/^act_a:2: its seal does not verify/),
    ]);
  });

  it('names every unsealed entry, whatever its date says (no trust by date)', async () => {
    const seal = sealOf('db_legacy');
    // Dated before any checkpoint: a writer's `at` is no authority; once sealed by the
    // operator's seal-records command it passes.
    let prev: string | null = null;
    const legacy = ledger('act_old', [{ event: 'proposed' }, { event: 'approved' }], null).map(
      (entry) => {
        const { digest: _digest, ...body } = {
          ...entry,
          at: '2020-01-05T00:00:00.000Z',
          prev_digest: prev,
        };
        prev = canonicalDigest(body);
        return { ...body, digest: prev };
      },
    );
    const fresh = ledger('act_new', [{ event: 'proposed' }], seal);
    await checkpointEach(seal, fresh);
    const sealing = await sealingOf(seal);
    expect(problems(actionLedgerChain([...legacy, ...fresh], true, sealing))).toEqual([
      expect.stringMatching(/^act_old:1: it is unsealed \(an entry written before sealing/),
      expect.stringMatching(/^act_old:2: it is unsealed \(an entry written before sealing/),
    ]);
    const resealed = legacy.map((entry) => ({
      ...entry,
      seal: seal.seal(entry._id, entry.digest),
    }));
    // The command checkpoints what it sealed, as every recorder does.
    await seal.checkpoint({ action_id: 'act_old', from_seq: 1, seq: 2, head: resealed[1].digest });
    expect(
      actionLedgerChain([...resealed, ...fresh], true, await sealingOf(seal)).violations,
    ).toEqual([]);
  });

  it('names an unsealed entry after a sealed one, or inside a checkpointed range', async () => {
    const seal = sealOf('db_strip');
    const entries = ledger('act_a', [{ event: 'proposed' }, { event: 'approved' }], seal);
    await checkpointEach(seal, entries.slice(0, 1));
    const { seal: _s1, ...first } = entries[0];
    const { seal: _s2, ...second } = entries[1];
    const sealing = { ...(await sealingOf(seal)), now: new Date(T0) };
    expect(problems(actionLedgerChain([entries[0], second], true, sealing))).toEqual([
      'act_a:2: it is unsealed, after sealed entry act_a:1',
    ]);
    expect(problems(actionLedgerChain([first], true, sealing))).toEqual([
      expect.stringMatching(
        /^act_a:1: it is unsealed, though the checkpoint of .* covers seq 1..1$/,
      ),
    ]);
  });

  it('names a checkpointed entry that is gone or whose digest changed, only when all was read', async () => {
    const seal = sealOf('db_cut');
    const entries = ledger('act_a', [{ event: 'proposed' }, { event: 'approved' }], seal);
    await checkpointEach(seal, entries);
    const sealing = await sealingOf(seal);
    expect(problems(actionLedgerChain(entries.slice(0, 1), true, sealing))).toEqual([
      expect.stringMatching(
        /^act_a:2: the checkpoint of .* names seq 2 with head sha256:.*, but the ledger has no such entry$/,
      ),
    ]);
    expect(actionLedgerChain(entries.slice(0, 1), false, sealing).violations).toEqual([]);

    const other = ledger('act_a', [{ event: 'proposed' }, { event: 'rejected' }], seal);
    expect(problems(actionLedgerChain(other, true, sealing))).toEqual([
      expect.stringMatching(
        /^act_a:2: the checkpoint of .* names head sha256:.* for it, but its digest is sha256:/,
      ),
    ]);
    // Its digest removed in the database: named, not a failed check.
    const noDigest = { ...entries[1], digest: undefined } as unknown as ActionLedgerEntry;
    expect(problems(actionLedgerChain([entries[0], noDigest], true, sealing))).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^act_a:2: the checkpoint of .* but its digest is undefined…$/),
      ]),
    );
    // A whole action gone: its newest checkpoint names the missing entry.
    expect(problems(actionLedgerChain([], true, sealing))).toEqual([
      expect.stringMatching(/^act_a:1: .*no such entry$/),
      expect.stringMatching(/^act_a:2: .*no such entry$/),
    ]);
  });

  it('names a sealed newest entry no checkpoint reaches, once the grace has passed', async () => {
    const seal = sealOf('db_grace');
    const entries = ledger('act_a', [{ event: 'proposed' }, { event: 'approved' }], seal);
    await checkpointEach(seal, entries.slice(0, 1));
    const within = await sealingOf(seal, new Date(T0 + CHECKPOINT_GRACE_MS));
    expect(actionLedgerChain(entries, true, within).violations).toEqual([]);
    const past = await sealingOf(seal, new Date(T0 + 1000 + CHECKPOINT_GRACE_MS + 1));
    expect(problems(actionLedgerChain(entries, true, past))).toEqual([
      'act_a:2: no checkpoint reaches it: the newest names seq 1',
    ]);
    const noFile = { ...past, checkpoints: [] };
    expect(problems(actionLedgerChain(entries, true, noFile))).toEqual([
      'act_a:2: no checkpoint names this action (the checkpoint file is missing, cut or not shared)',
    ]);
  });

  it('names a checkpoint line not signed by an accepted key, and does not use it', async () => {
    const seal = sealOf('db_forged_line');
    const entries = ledger('act_a', [{ event: 'proposed' }], seal);
    await checkpointEach(seal, entries);
    const [line] = await seal.checkpoints();
    appendFileSync(
      join(dir, 'db_forged_line.jsonl'),
      `${JSON.stringify({ ...line, seq: 7, head: entries[0].digest })}\n{"torn":\n`,
    );
    const findings = actionLedgerChain(entries, true, await sealingOf(seal));
    expect(findings.violations).toEqual([
      {
        collection: 'ledger_checkpoints',
        record_id: 'act_a:7',
        problem: expect.stringMatching(/^the checkpoint does not verify/),
      },
    ]);
  });

  it('creates the checkpoint directory when it is not there', async () => {
    const seal = createLedgerSeal({
      seed: randomBytes(32),
      checkpointDir: join(dir, 'not', 'yet'),
      database: 'db_new_dir',
    });
    expect(await seal.checkpoints()).toEqual([]);
    await checkpointEach(seal, ledger('act_a', [{ event: 'proposed' }], seal));
    expect(await seal.checkpoints()).toEqual([
      expect.objectContaining({ db: 'db_new_dir', action_id: 'act_a', from_seq: 1, seq: 1 }),
    ]);
  });

  it('reads only its own database’s checkpoint file', async () => {
    const seal = sealOf('db_mine');
    await checkpointEach(seal, ledger('act_a', [{ event: 'proposed' }], seal));
    expect(await sealOf('db_other').checkpoints()).toEqual([]);
    expect(await seal.checkpoints()).toHaveLength(1);
  });
});

describe('actions_match_ledger', () => {
  const approval = (principal: string): ActionDecision =>
    ({
      decision: 'approve',
      principal_id: principal,
      decision_id: `dec_${principal}`,
    }) as ActionDecision;
  const entries = ledger(
    'act_a',
    [
      { event: 'proposed' },
      { event: 'awaiting_approval' },
      { event: 'approved', detail: { decision: approval('prn_ada') } },
    ],
    null,
  );
  const record = (over: Partial<ActionRecord> = {}): ActionRecord =>
    ({
      _id: 'act_a',
      seq: 3,
      status: 'approved',
      ledger_head: entries[2].digest,
      approvals: [approval('prn_ada')],
      ...over,
    }) as ActionRecord;
  const now = new Date(T0 + 10_000);
  const judge = (r: ActionRecord, ledgerRows = entries, complete = true, when = now) =>
    problems(actionsMatchLedger([r], chainsByAction(ledgerRows), complete, when));

  it('passes a record that is its ledger', () => {
    expect(actionsMatchLedger([record()], chainsByAction(entries), true, now)).toEqual({
      checked: 1,
      violations: [],
    });
  });

  it('names a status, head, seq or approvals that are not the ledger’s', () => {
    expect(judge(record({ status: 'executed' }))).toEqual([
      'act_a: status executed, but its ledger says approved at act_a:3',
    ]);
    expect(judge(record({ ledger_head: entries[1].digest }))).toEqual([
      expect.stringMatching(/^act_a: its ledger_head sha256:.* is not the digest of act_a:3$/),
    ]);
    expect(judge(record({ seq: 4 }))).toEqual([
      'act_a: its seq 4 has no ledger entry (the ledger reaches seq 3)',
    ]);
    expect(judge(record({ approvals: [approval('prn_ada'), approval('prn_bob')] }))).toEqual([
      "act_a: its approvals (prn_ada, prn_bob) are not its ledger's (prn_ada)",
    ]);
    expect(judge(record(), [])).toEqual(['act_a: it has no ledger entry']);
    // A field removed in the database is a difference, not a failed check.
    expect(judge(record({ approvals: undefined }))).toEqual([
      "act_a: its approvals (none) are not its ledger's (prn_ada)",
    ]);
  });

  it('lets a record stand behind its ledger within the grace, names it after', () => {
    const behind = record({
      seq: 2,
      status: 'awaiting_approval',
      ledger_head: entries[1].digest,
      approvals: [],
    });
    expect(judge(behind)).toEqual([]);
    expect(judge(behind, entries, true, new Date(T0 + 2000 + PROJECTION_GRACE_MS + 1))).toEqual([
      'act_a: it stands at seq 2 (awaiting_approval), its ledger at act_a:3 (approved)',
    ]);
  });

  it('skips a record whose ledger was not read whole', () => {
    const found = actionsMatchLedger([record()], chainsByAction(entries.slice(1)), false, now);
    expect(found).toEqual({ checked: 0, violations: [] });
  });
});
