import { patched, upsertMemo, type WorkflowInterceptorsFactory } from '@temporalio/workflow';
import { UPGRADE_MEMO, UPGRADE_PATCH } from './upgrade-patch';

/**
 * The next build's change, done right: behind `patched`, so a workflow whose history was
 * written without it replays the old way, and a new one takes the new branch. Synchronous
 * before the workflow function, so its update handlers are still set in the first activation
 * (an update-with-start would otherwise find no handler).
 */
export const interceptors: WorkflowInterceptorsFactory = () => ({
  inbound: [
    {
      execute(input, next) {
        if (patched(UPGRADE_PATCH)) upsertMemo(UPGRADE_MEMO);
        return next(input);
      },
    },
  ],
});
