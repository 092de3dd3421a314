import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { TestApp } from './test-app';

const run = promisify(execFile);
/** The real `temporal` CLI, as an operator with access to the Temporal server uses it. */
export const TEMPORAL_CLI = join(__dirname, '../../.tools/bin/temporal');

/** Runs `temporal <args>` against the app's server: its exit code and output. */
export async function temporalCli(
  app: TestApp,
  args: string[],
): Promise<{ code: number; output: string }> {
  const target = ['--address', app.deps.config.temporalAddress, '--namespace', 'default'];
  try {
    const { stdout, stderr } = await run(TEMPORAL_CLI, [...args, ...target], { timeout: 30_000 });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? 1, output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
  }
}

/** `temporalCli` that must succeed: its output. */
export async function temporalCliOk(app: TestApp, args: string[]): Promise<string> {
  const { code, output } = await temporalCli(app, args);
  if (code !== 0) throw new Error(`temporal ${args.join(' ')} failed (${code}): ${output}`);
  return output;
}

/**
 * Event id of the workflow task that took the workflow's last update (the task completed
 * just before its UPDATE_ACCEPTED), or of its first task when it took none: where a reset
 * with `--event-id` redoes that update.
 */
export async function lastUpdateTask(app: TestApp, workflowId: string): Promise<string> {
  const shown = await temporalCliOk(app, [
    ...['workflow', 'show', '--workflow-id', workflowId, '--output', 'json'],
  ]);
  const events = (JSON.parse(shown) as { events: { eventId: string; eventType: string }[] }).events;
  const completed = (event: { eventType: string }) =>
    event.eventType.endsWith('WORKFLOW_TASK_COMPLETED');
  const accepted = events.findLastIndex((event) => event.eventType.endsWith('UPDATE_ACCEPTED'));
  if (accepted < 0) return events.find(completed)!.eventId;
  return events.slice(0, accepted).findLast(completed)!.eventId;
}

/**
 * Event id of the workflow task that took the workflow's first `updateName` update (the
 * task completed just before that update's UPDATE_ACCEPTED): where a reset with
 * `--event-id` redoes it, and every update the run took after it.
 */
export async function updateTask(
  app: TestApp,
  workflowId: string,
  updateName: string,
): Promise<string> {
  const shown = await temporalCliOk(app, [
    ...['workflow', 'show', '--workflow-id', workflowId, '--output', 'json'],
  ]);
  const events = (
    JSON.parse(shown) as {
      events: {
        eventId: string;
        eventType: string;
        workflowExecutionUpdateAcceptedEventAttributes?: {
          acceptedRequest?: { input?: { name?: string } };
        };
      }[];
    }
  ).events;
  const accepted = events.findIndex(
    (event) =>
      event.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name ===
      updateName,
  );
  if (accepted < 0) throw new Error(`${workflowId} took no ${updateName} update`);
  return events
    .slice(0, accepted)
    .findLast((event) => event.eventType.endsWith('WORKFLOW_TASK_COMPLETED'))!.eventId;
}
