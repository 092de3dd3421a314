import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const TEMPORAL_CLI = join(__dirname, '../../../.tools/bin/temporal');

/**
 * Sends an update straight to a workflow with the real `temporal` CLI, around the api, as an
 * attacker with access to the Temporal server would; answers the CLI's exit code and output.
 */
export async function sendUpdateWithCli(
  temporalAddress: string,
  workflowId: string,
  name: string,
  input: Record<string, unknown>,
): Promise<{ code: number; output: string }> {
  const args = [
    ...['workflow', 'update', 'execute', '--workflow-id', workflowId],
    ...['--name', name, '--input', JSON.stringify(input)],
    ...['--address', temporalAddress, '--namespace', 'default'],
  ];
  try {
    const { stdout, stderr } = await run(TEMPORAL_CLI, args, { timeout: 30_000 });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? 1, output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
  }
}
