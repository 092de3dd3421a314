import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { historyFromJSON, type History } from '@temporalio/common/lib/proto-utils';

/**
 * Workflow histories replayed by test/workflows/replay.int.test.ts (docs/workflow-versioning.md):
 * `captured/` is rewritten as a whole by `npm run histories:capture`; `kept/` holds histories
 * of earlier builds, kept by hand while workflows with those histories may still be running.
 */
export const HISTORIES_DIR = join(__dirname, '..', 'workflows', 'histories');
export const CAPTURED_DIR = join(HISTORIES_DIR, 'captured');
export const KEPT_DIR = join(HISTORIES_DIR, 'kept');

export interface StoredHistory {
  /** Path under test/workflows/histories, e.g. `captured/repairWorkflow/repaired.json`. */
  file: string;
  /** The workflow type its first event names. */
  workflowType: string;
  history: History;
}

/** The workflow type a history's start event names. */
export const workflowTypeOf = (history: History): string =>
  history.events?.[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name ?? '';

/** Every stored history, captured and kept, in a stable order. */
export function loadStoredHistories(): StoredHistory[] {
  return [...jsonFilesUnder(CAPTURED_DIR), ...jsonFilesUnder(KEPT_DIR)].map((path) => {
    const history = historyFromJSON(JSON.parse(readFileSync(path, 'utf8')));
    return { file: relative(HISTORIES_DIR, path), workflowType: workflowTypeOf(history), history };
  });
}

function jsonFilesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.json'))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}
