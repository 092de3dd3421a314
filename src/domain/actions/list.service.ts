import type { AppInfra } from '../../app/deps';
import type { AuthContext } from '../../auth/auth-context';
import { pageById } from '../../store/paging';
import { workflowUrlOf } from '../workflow-links';
import { actionSummary, listEntryOf, reaches } from './action-views';
import type { ActionListQuery } from './schemas';

type Deps = Pick<AppInfra, 'config' | 'repos' | 'temporal'>;

/** The listing over every action, its rows cut to list entries. */
const allActions = (deps: Deps) => ({
  list: async (...args: Parameters<Deps['repos']['externalActions']['list']>) =>
    (await deps.repos.externalActions.list(...args)).map(listEntryOf),
});

/**
 * Actions by their current status, newest first: one query per page. `awaiting_me` is the
 * caller's inbox; a key that cannot reach the execution family may approve nothing.
 */
export async function listActions(deps: Deps, auth: AuthContext, query: ActionListQuery) {
  if (query.awaiting_me && !reaches(auth, 'external_action_execution')) {
    return { items: [], next_cursor: null };
  }
  const nowMs = Date.now();
  return pageById(
    query,
    'act',
    (limit, before) =>
      (query.awaiting_me || query.status === 'awaiting_approval'
        ? deps.repos.actionInbox
        : allActions(deps)
      ).list(
        {
          status: query.status,
          action_kind: query.action_kind,
          shared_context_id: query.shared_context_id,
          proposed_by: query.proposed_by,
          awaiting: query.awaiting_me
            ? { principal_id: auth.principalId, role: auth.role }
            : undefined,
        },
        limit,
        before,
      ),
    (record) => ({
      ...actionSummary(record, auth, nowMs),
      workflow_url: workflowUrlOf(deps, record.workflow_id),
    }),
  );
}
