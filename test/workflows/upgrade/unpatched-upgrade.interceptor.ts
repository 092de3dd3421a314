import { upsertMemo, type WorkflowInterceptorsFactory } from '@temporalio/workflow';
import { UPGRADE_MEMO } from './upgrade-patch';

/**
 * The same change done wrong, without `patched`: every workflow now issues a command first
 * that no stored history has, which replay must report as a determinism violation.
 */
export const interceptors: WorkflowInterceptorsFactory = () => ({
  inbound: [
    {
      execute(input, next) {
        upsertMemo(UPGRADE_MEMO);
        return next(input);
      },
    },
  ],
});
