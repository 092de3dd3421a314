import { changeText, isRefusal } from './action-words';
import { firstItems, type Session } from './session';
import type { Names } from './names';
import type { Action, LedgerEntry } from './types';

/** One action as the service shows it now. */
export async function readAction(session: Session, id: string): Promise<Action> {
  const { data } = await session.client.GET('/v1/external-actions/{action_id}', {
    params: { path: { action_id: id } },
  });
  return data!.payload;
}

/**
 * The refused decisions an action's ledger records (who they claimed to be, why), or null
 * when the ledger cannot be read with this key. Read only when the action counts some.
 */
export async function readRefusals(
  session: Session,
  action: Action,
): Promise<LedgerEntry[] | null> {
  if (!action.refused_decisions) return [];
  try {
    const entries = await firstItems(
      session.client.paginate('/v1/external-actions/history', {
        query: { action_id: action.action_id, limit: 500 },
      }),
      // An action's chain is bounded (seq ≤ 1000): every entry of it.
      1000,
    );
    return entries.filter(isRefusal);
  } catch {
    return null;
  }
}

/** What a decision answered: the action after it, and what it changes where. */
export function report(session: Session, action: Action, names: Names): void {
  const { out } = session;
  if (out.json) return out.data(action);
  out.line(
    `${action.action_id} ${out.style.status(action.status)} (approvals ${action.approvals.length}): ${changeText(action, names)}`,
  );
}
