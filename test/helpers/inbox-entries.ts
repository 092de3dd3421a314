import type { ActionListEntry } from '../../src/store/external-actions.repo';

/** An inbox list entry of a notify action any principal may approve. */
export const inboxEntry = (id: string, seq: number, status: ActionListEntry['status']) =>
  ({
    _id: id,
    seq,
    status,
    action_kind: 'notify',
    shared_context_id: null,
    proposed_by: { principal_id: 'prn_01JZZZZZZZZZZZZZZZZZZZZZZZ', key_id: 'a1b2c3d4e5f6' },
    approved_by: [],
    eligible: ['*'],
    updated_at: new Date().toISOString(),
  }) as unknown as ActionListEntry;
