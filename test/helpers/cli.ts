import { execFile, spawnSync } from 'node:child_process';
import { join } from 'node:path';

const PACKAGE = join(__dirname, '..', '..', 'packages', 'client');
/** The built `gr`, as `npm install` links it (`bin` of packages/client). */
export const GR_BIN = join(PACKAGE, 'bin', 'gr.js');

/**
 * Builds the client package (dist/, what `gr` runs from) so the CLI under test is the one
 * in the sources, in a fresh clone as after a change. About five seconds.
 */
export function buildClientPackage(): void {
  const tsc = require.resolve('typescript/bin/tsc');
  const run = spawnSync(process.execPath, [tsc, '-p', join(PACKAGE, 'tsconfig.json')], {
    encoding: 'utf8',
  });
  if (run.status !== 0) throw new Error(`client build failed:\n${run.stdout}${run.stderr}`);
}

export interface GrResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `gr` with exactly this environment (plus PATH): asynchronously, since the app it
 * calls answers from this same process.
 */
export function runGr(args: string[], env: Record<string, string>): Promise<GrResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [GR_BIN, ...args],
      { env: { PATH: process.env['PATH'] ?? '', ...env }, timeout: 90_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** Parses `--json` output, failing with what was printed when it is not JSON. */
export function jsonOf<T>(result: GrResult): T {
  try {
    return JSON.parse(result.stdout) as T;
  } catch {
    throw new Error(`not JSON (exit ${result.code}):\n${result.stdout}\n${result.stderr}`);
  }
}
