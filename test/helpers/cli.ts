import { execFile, spawn, spawnSync } from 'node:child_process';
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

/**
 * Runs `gr` at a terminal (a pseudo-terminal from util-linux `script`), as a person types
 * it: once stdout shows `prompt`, `answer` is typed and Enter pressed. Lines end in `\n`
 * (the terminal's `\r\n` undone); stdout and stderr arrive together, as on a screen.
 */
export function runGrAtTerminal(
  args: string[],
  env: Record<string, string>,
  prompt: string,
  answer: string,
): Promise<GrResult & { asked: boolean }> {
  const quote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;
  const command = [process.execPath, GR_BIN, ...args].map(quote).join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qec', command, '/dev/null'], {
      env: { PATH: process.env['PATH'] ?? '', TERM: 'dumb', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let screen = '';
    let asked = false;
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.stdout.on('data', (chunk: Buffer) => {
      screen += chunk.toString('utf8');
      if (!asked && screen.includes(prompt)) {
        asked = true;
        child.stdin.write(`${answer}\r`);
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (screen += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      const stdout = screen.replace(/\r\n/g, '\n');
      resolve({ code: code ?? -1, stdout, stderr: '', asked });
    });
  });
}
