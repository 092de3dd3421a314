import type { ActivityOptions, LocalActivityOptions } from '@temporalio/common';

/**
 * Options of the steps that record a run's progress in MongoDB: each is a few writes, so a
 * minute is ample; a database outage is ridden out for about 20 minutes before the run fails.
 */
export const RECORD_STEP_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute', maximumAttempts: 20 },
};

/**
 * The action workflow's planning and recording: short reads and writes of our own store, run
 * as local activities inside the workflow task with no extra round trip through the server
 * (the benchmark showed each regular activity costing tens of milliseconds on the critical
 * path). A store outage is worth riding out, but not forever: a day of retries, then the
 * action fails instead of hanging unseen. Each call names itself (`executeWithOptions` with a
 * `summary`), so the history reads as a story: "record approval by Ada (2/2)".
 */
export const ACTION_STORE_STEP: LocalActivityOptions = {
  startToCloseTimeout: '10 seconds',
  scheduleToCloseTimeout: '1 day',
  retry: {
    initialInterval: '200 milliseconds',
    backoffCoefficient: 2,
    maximumInterval: '10 seconds',
  },
};

/** How many times an action's effect is tried before it fails for good. */
export const ACTION_EFFECT_ATTEMPTS = 6;

/**
 * The action's effect. An external call (webhook) is a regular activity: its own task,
 * timeout and retries, visible in the UI. Effects on our own store (world patch, outbox) are
 * local activities: as idempotent and as retried, without the round trip through the server.
 */
export const ACTION_EFFECT_STEP = {
  startToCloseTimeout: '15 seconds',
  retry: {
    initialInterval: '500 milliseconds',
    backoffCoefficient: 2,
    maximumInterval: '10 seconds',
    maximumAttempts: ACTION_EFFECT_ATTEMPTS,
  },
} as const satisfies ActivityOptions;
