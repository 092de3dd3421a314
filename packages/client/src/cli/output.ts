/**
 * How commands write: JSON for scripts (`--json`), else lines and tables for people, in
 * colour only on a terminal that wants it (not when piped, not with NO_COLOR or TERM=dumb).
 */
export interface Output {
  /** True when `--json` was given: one JSON document on stdout, nothing else. */
  readonly json: boolean;
  /** Whether stdout is a terminal (progress drawn in place, prompts possible). */
  readonly tty: boolean;
  line(text?: string): void;
  /** Writes `value` as JSON (what `--json` prints). */
  data(value: unknown): void;
  /** A line about what is going on (stderr, so it never mixes with `--json` data). */
  note(text: string): void;
  /** Redraws the current terminal line (progress); a plain line when not a terminal. */
  redraw(text: string): void;
  style: Style;
}

export interface Style {
  bold(text: string): string;
  dim(text: string): string;
  /** Coloured by how a status reads: green done, red failed, yellow waiting. */
  status(status: string): string;
}

type Stream = Pick<NodeJS.WriteStream, 'write'> & { isTTY?: boolean };

export function colourWanted(stream: Stream, env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(stream.isTTY) && !env['NO_COLOR'] && env['TERM'] !== 'dumb';
}

const GOOD = new Set(['executed', 'ready', 'approved', 'active', 'passed']);
const BAD = new Set([
  'failed',
  'rejected',
  'expired',
  'aborted',
  'dry_run_failed',
  'cancelled',
  'revoked',
  'suspended',
]);

export function makeStyle(colour: boolean): Style {
  const sgr = (code: string) => (text: string) =>
    colour ? `\u001b[${code}m${text}\u001b[0m` : text;
  const [bold, dim, green, red, yellow] = ['1', '2', '32', '31', '33'].map(sgr);
  return {
    bold,
    dim,
    status: (status) => (GOOD.has(status) ? green : BAD.has(status) ? red : yellow)(status),
  };
}

export function createOutput(
  json: boolean,
  stdout: Stream = process.stdout,
  stderr: Stream = process.stderr,
  env: NodeJS.ProcessEnv = process.env,
): Output {
  const tty = Boolean(stdout.isTTY);
  let drawn = false;
  const endRedraw = () => {
    if (drawn) stdout.write('\n');
    drawn = false;
  };
  return {
    json,
    tty,
    style: makeStyle(!json && colourWanted(stdout, env)),
    line(text = '') {
      endRedraw();
      stdout.write(`${text}\n`);
    },
    data(value) {
      stdout.write(`${JSON.stringify(value, null, 2)}\n`);
    },
    note(text) {
      if (!json) endRedraw();
      stderr.write(`${text}\n`);
    },
    redraw(text) {
      if (!tty) return void stdout.write(`${text}\n`);
      stdout.write(`\r\u001b[2K${text}`);
      drawn = true;
    },
  };
}

/** Columns padded to their widest cell; the last column is not padded. */
export function table(headers: string[], rows: string[][]): string[] {
  const widths = headers.map((header, i) =>
    Math.max(visibleLength(header), ...rows.map((row) => visibleLength(row[i] ?? ''))),
  );
  const render = (cells: string[]) =>
    cells
      .map((cell, i) =>
        i === cells.length - 1 ? cell : cell + ' '.repeat(widths[i] - visibleLength(cell)),
      )
      .join('  ')
      .trimEnd();
  return [render(headers), ...rows.map(render)];
}

// eslint-disable-next-line no-control-regex
const visibleLength = (text: string) => text.replace(/\u001b\[[0-9;]*m/g, '').length;

/** `2026-05-01T10:00:00.000Z` as `2026-05-01 10:00:00Z`, and how far from now: `(in 14m)`. */
export function when(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return '-';
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return iso;
  return `${iso.slice(0, 19).replace('T', ' ')}Z (${relative(at - now)})`;
}

function relative(deltaMs: number): string {
  const seconds = Math.round(Math.abs(deltaMs) / 1000);
  const text =
    seconds < 60
      ? `${seconds}s`
      : seconds < 3600
        ? `${Math.round(seconds / 60)}m`
        : seconds < 172_800
          ? `${Math.round(seconds / 3600)}h`
          : `${Math.round(seconds / 86_400)}d`;
  return deltaMs >= 0 ? `in ${text}` : `${text} ago`;
}

/** Cuts `text` to `max` characters with an ellipsis. */
export const clip = (text: string, max: number): string =>
  text.length <= max ? text : `${text.slice(0, max - 1)}…`;
