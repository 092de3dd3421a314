import type { ActivityOptions } from '@temporalio/workflow';

/**
 * Options of the steps that record a run's progress in MongoDB: each is a few writes, so a
 * minute is ample; a database outage is ridden out for about 20 minutes before the run fails.
 */
export const RECORD_STEP_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute', maximumAttempts: 20 },
};
