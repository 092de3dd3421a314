import pino from 'pino';
import type { TemporalGateway } from '../../src/temporal/gateway';
import { ResetRunWatcher } from '../../src/observability/reset-runs';

// The reset-run watcher's scan of completed action runs, with a visibility store of our
// own: a completed run whose action the ledger has not ended is handed over to be recorded,
// once however many scans list it; one whose action is final is left alone.

interface Listed {
  workflowId: string;
  runId: string;
  startTime: Date;
  closeTime?: Date;
}

function watcherOver(
  runs: { running: Listed[]; completed: Listed[] },
  final: Set<string>,
  failures = 0,
) {
  let toFail = failures;
  const queries: string[] = [];
  const temporal = {
    taskQueue: 'q',
    getClient: async () => ({
      workflow: {
        async *list({ query }: { query: string }) {
          queries.push(query);
          yield* query.includes('"Completed"') ? runs.completed : runs.running;
        },
      },
    }),
  } as unknown as TemporalGateway;
  const reflected: string[] = [];
  const refused: string[] = [];
  const watcher = new ResetRunWatcher({
    temporal,
    endedActions: async (ids) => new Set(ids.filter((id) => final.has(id))),
    closedRuns: {
      refuseIfEnded: async (actionId) => {
        refused.push(actionId);
        return true;
      },
      reflectCompleted: async (actionId, runId) => {
        if (toFail-- > 0) throw new Error('store down');
        reflected.push(`${actionId}/${runId}`);
        return 'recorded';
      },
    },
    logger: pino({ level: 'silent' }),
  });
  return { watcher, reflected, refused, queries };
}

const now = new Date();
const completed = (id: string, runId: string): Listed => ({
  workflowId: `action-${id}`,
  runId,
  startTime: now,
  closeTime: now,
});

describe('the reset-run watcher, on completed runs', () => {
  it('records the end of an action whose run completed short of a final status, once', async () => {
    const runs = {
      running: [],
      completed: [completed('act_open', 'r1'), completed('act_done', 'r2')],
    };
    const { watcher, reflected, queries } = watcherOver(runs, new Set(['act_done']));
    expect(await watcher.scan()).toBe(1);
    expect(reflected).toEqual(['act_open/r1']);
    // The next scans overlap it: it is not read again.
    expect(await watcher.scan()).toBe(0);
    expect(reflected).toEqual(['act_open/r1']);
    expect(queries.some((q) => q.includes('ExecutionStatus = "Completed" AND CloseTime >='))).toBe(
      true,
    );
  });

  it('judges a run again when recording it failed', async () => {
    const runs = { running: [], completed: [completed('act_open', 'r1')] };
    const { watcher, reflected } = watcherOver(runs, new Set(), 1);
    await expect(watcher.scan()).rejects.toThrow('store down');
    expect(await watcher.scan()).toBe(1);
    expect(reflected).toEqual(['act_open/r1']);
  });

  it('still refuses a running reset run of an ended action', async () => {
    const runs = { running: [completed('act_done', 'r3')], completed: [] };
    const { watcher, refused, reflected } = watcherOver(runs, new Set(['act_done']));
    expect(await watcher.scan()).toBe(1);
    expect(refused).toEqual(['act_done']);
    expect(reflected).toEqual([]);
  });
});
