import type { DomainInfra } from '../infra';
import { found } from '../../lib/errors';
import { actionWorkflowId } from '../../workflows/external-action.contract';
import { deploymentWorkflowId } from '../../workflows/substrate-deployment.contract';
import { loadContext } from '../shared-contexts/records';
import { actionLedgerChain, worldHistoryReplay } from '../proofs/checks';
import type { DossierSubjectKind } from './schemas';

type Deps = Pick<DomainInfra, 'repos' | 'witnesses'>;

/** Most records of one kind a dossier gathers. */
const MAX_GATHERED = 1_000;
/** Actions of a context whose ledger chains a context dossier proves. */
const CONTEXT_CHAINS = 100;

/** What a dossier holds about its subject, before any rendering. */
export interface Gathered {
  records: Record<string, unknown>;
  proofs: Record<string, { status: 'passed' | 'failed'; checked: number; violations: unknown[] }>;
  /** Workflows whose Temporal history a full dossier adds. */
  workflows: string[];
}

const proof = (findings: { checked: number; violations: unknown[] }) => ({
  status: findings.violations.length ? ('failed' as const) : ('passed' as const),
  ...findings,
});

/** Everything stored about the subject that a core dossier holds (404 when it is unknown). */
export async function gather(deps: Deps, kind: DossierSubjectKind, id: string): Promise<Gathered> {
  const { repos } = deps;
  switch (kind) {
    case 'action': {
      const action = await found(repos.externalActions.findById(id), `action ${id}`);
      const ledger = await repos.externalActions.entriesOf(id);
      const objectId = action.target.world_object_ref;
      const object = objectId ? await repos.worldObjects.findById(objectId) : null;
      return {
        records: { action, ledger, target_object: object },
        proofs: { action_ledger_chain: proof(actionLedgerChain(ledger, true)) },
        workflows: [actionWorkflowId(id)],
      };
    }
    case 'deployment': {
      const deployment = await found(repos.substrateDeployments.findById(id), `deployment ${id}`);
      return { records: { deployment }, proofs: {}, workflows: [deploymentWorkflowId(id)] };
    }
    case 'object': {
      const object = await found(repos.worldObjects.findById(id), `world object ${id}`);
      const [history, actions, repairs] = await Promise.all([
        repos.worldHistory.list({ object_id: id }, MAX_GATHERED),
        repos.externalActions.aboutObject(id, MAX_GATHERED),
        repos.repairs.list({ object_id: id }, MAX_GATHERED),
      ]);
      const events = history.items.filter((event) => event.object_id === id);
      return {
        records: { object, history: history.items, actions, repairs },
        proofs: { world_history_replay: proof(worldHistoryReplay([object], () => events, true)) },
        workflows: [...actions.map((a) => a.workflow_id), ...repairs.map((r) => r.workflow_id)],
      };
    }
    case 'session': {
      const session = await found(repos.sessions.findById(id), `session ${id}`);
      const newest = await repos.sessionSteps.newest(id);
      const steps = [];
      for (let step = 1; step <= Math.min(newest?.step ?? 0, MAX_GATHERED); step += 1) {
        steps.push(await repos.sessionSteps.find(id, step));
      }
      return { records: { session, steps }, proofs: {}, workflows: [] };
    }
    case 'context': {
      const context = await loadContext(deps, id);
      const { fold: _fold, ...records } = context;
      // Each action's whole chain (read per action), for the newest `CONTEXT_CHAINS`.
      const chains = await Promise.all(
        context.actions
          .slice(0, CONTEXT_CHAINS)
          .map((action) => repos.externalActions.entriesOf(action._id)),
      );
      const entries = chains.flat();
      return {
        records,
        proofs: { action_ledger_chain: proof(actionLedgerChain(entries, true)) },
        workflows: context.actions.map((action) => actionWorkflowId(action._id)),
      };
    }
  }
}

/** Fields that hold a deadline or a time still to come, never a time something happened. */
const DEADLINE_FIELDS = new Set(['expires_at', 'executable_at', 'deliver_at', 'deadline']);

/**
 * The newest ISO time anywhere in the records at which something happened (the dossier's
 * `as_of`; never the clock, never a deadline such as an action's `expires_at`).
 */
export function newestTime(value: unknown): string | null {
  let newest: string | null = null;
  const visit = (item: unknown): void => {
    if (typeof item === 'string') {
      if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/.test(item) && (!newest || item > newest))
        newest = item;
    } else if (Array.isArray(item)) item.forEach(visit);
    else if (item && typeof item === 'object') {
      for (const [key, field] of Object.entries(item)) if (!DEADLINE_FIELDS.has(key)) visit(field);
    }
  };
  visit(value);
  return newest;
}
