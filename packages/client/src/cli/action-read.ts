import type { Session } from './session';
import type { Action } from './types';

/** One action as the service shows it now. */
export async function readAction(session: Session, id: string): Promise<Action> {
  const { data } = await session.client.GET('/v1/external-actions/{action_id}', {
    params: { path: { action_id: id } },
  });
  return data!.payload;
}

/** What a decision answered: the action after it. */
export function report(session: Session, action: Action): void {
  const { out } = session;
  if (out.json) return out.data(action);
  out.line(
    `${action.action_id} ${out.style.status(action.status)} (approvals ${action.approvals.length})`,
  );
}
