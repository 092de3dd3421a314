import type { ActionListEntry } from './external-actions.repo';

/** An inbox entry as stored: the list entry, and the arrival it is listed under. */
export type InboxEntry = ActionListEntry & { arrival: string };
