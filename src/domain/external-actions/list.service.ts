import type { DomainInfra } from '../infra';
import type { AuthContext } from '../../auth/auth-context';
import { decodeInboxCursor, encodeInboxCursor } from '../../store/action-inbox.repo';
import type { ActionListFilter } from '../../store/external-actions.repo';
import { pageById } from '../../store/paging';
import { workflowUrlOf } from '../workflow-links';
import { actionSummary, listEntryOf, reaches } from './action-views';
import type { ActionListQuery } from './schemas';

type Deps = Pick<DomainInfra, 'config' | 'repos' | 'temporal'>;

/**
 * Actions by their current status, newest first: one query per page. `awaiting_me` is the
 * caller's inbox; a key that cannot reach the execution family may approve nothing. What
 * awaits approval is read from the inbox (newest arrival first, its own cursors), the rest
 * from every action (newest `action_id` first).
 */
export async function listActions(deps: Deps, auth: AuthContext, query: ActionListQuery) {
  if (query.awaiting_me && !reaches(auth, 'external_action_execution')) {
    return { items: [], next_cursor: null };
  }
  const nowMs = Date.now();
  const filter: ActionListFilter = {
    status: query.status,
    action_kind: query.action_kind,
    shared_context_id: query.shared_context_id,
    proposed_by: query.proposed_by,
    awaiting: query.awaiting_me ? { principal_id: auth.principalId, role: auth.role } : undefined,
  };
  const view = (record: Parameters<typeof actionSummary>[0]) => ({
    ...actionSummary(record, auth, nowMs),
    workflow_url: workflowUrlOf(deps, record.workflow_id),
  });
  if (query.awaiting_me || query.status === 'awaiting_approval') {
    const limit = query.limit ?? 50;
    const after = query.cursor ? decodeInboxCursor(query.cursor, filter) : undefined;
    const rows = await deps.repos.actionInbox.page(filter, limit, after);
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      items: page.map((row) => view(row.record)),
      next_cursor: rows.length > limit && last ? encodeInboxCursor(last.next) : null,
    };
  }
  return pageById(
    query,
    'act',
    async (limit, before) =>
      (await deps.repos.externalActions.list(filter, limit, before)).map(listEntryOf),
    view,
  );
}
