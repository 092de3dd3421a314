import {
  ScheduleAlreadyRunning,
  type ScheduleOptions,
  type ScheduleOptionsStartWorkflowAction,
} from '@temporalio/client';
import type { WorkflowTypes } from '../../workflows/workflow-types';
import type { Logger } from 'pino';
import type { TemporalGateway } from '../../temporal/gateway';
import { checkpointScheduleNote, scheduledCheckpointText } from './checkpoint-text';
import type { CheckpointWorkflowInput } from '../../workflows/checkpoint.contract';
import { OpsStatusKey, ProposedByKey } from '../../workflows/shared.contract';
import { SCOPE_COLLECTIONS } from './schemas';

/** The schedule's id: one per task queue, so every api instance of a deployment shares it. */
export const checkpointScheduleId = (taskQueue: string): string => `${taskQueue}-checkpoints`;

/**
 * Creates the Temporal Schedule that checkpoints continuously, or brings an existing one to
 * the configured spec: every api instance may run this at start; the first creates it, the
 * others update it to the same thing. It shows in the Web UI's Schedules page.
 */
export async function ensureCheckpointSchedule(
  temporal: TemporalGateway,
  spec: string,
  publicBaseUrl = '',
): Promise<void> {
  const client = await temporal.getClient();
  const input: CheckpointWorkflowInput = { collections: SCOPE_COLLECTIONS };
  const scheduleId = checkpointScheduleId(temporal.taskQueue);
  const note = checkpointScheduleNote(spec);
  const options: ScheduleOptions<
    ScheduleOptionsStartWorkflowAction<WorkflowTypes['checkpointWorkflow']>
  > = {
    scheduleId,
    spec: /^\d+[smhd]$/.test(spec)
      ? { intervals: [{ every: spec as `${number}${'s' | 'm' | 'h' | 'd'}` }] }
      : { cronExpressions: [spec] },
    action: {
      type: 'startWorkflow',
      workflowType: 'checkpointWorkflow',
      taskQueue: temporal.taskQueue,
      args: [input],
      workflowId: `checkpoint-scheduled`,
      ...scheduledCheckpointText(scheduleId, spec, publicBaseUrl),
      typedSearchAttributes: [
        { key: OpsStatusKey, value: 'checkpoint.running' },
        { key: ProposedByKey, value: 'schedule' },
      ],
    },
    // A checkpoint still running when the next is due: skip the next, never pile up.
    policies: { overlap: 'SKIP', catchupWindow: '1 minute' },
    memo: { purpose: 'continuous checkpoints (CHECKPOINT_SCHEDULE)' },
    state: { note },
  };
  try {
    await client.schedule.create(options);
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
    await client.schedule.getHandle(options.scheduleId).update((previous) => ({
      ...previous,
      spec: options.spec,
      action: options.action,
      policies: { ...previous.policies, overlap: 'SKIP', catchupWindow: 60_000 },
      state: { ...previous.state, note },
    }));
  }
}

/**
 * Keeps trying until Temporal answers (the api starts while Temporal may be down), then
 * stops; `stop` ends the tries early.
 */
export function keepCheckpointSchedule(
  temporal: TemporalGateway,
  spec: string,
  logger: Logger,
  publicBaseUrl = '',
): { stop(): void; ready: Promise<void> } {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const ready = new Promise<void>((resolve) => {
    const attempt = () => {
      if (stopped) return resolve();
      ensureCheckpointSchedule(temporal, spec, publicBaseUrl).then(
        () => {
          logger.info(
            { schedule: checkpointScheduleId(temporal.taskQueue), spec },
            'checkpoint schedule in place',
          );
          resolve();
        },
        (error: unknown) => {
          logger.warn({ err: error }, 'checkpoint schedule not in place yet; retrying');
          timer = setTimeout(attempt, 10_000);
          timer.unref();
        },
      );
    };
    attempt();
  });
  return {
    ready,
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}
