/**
 * Reading pattern text: standard Life RLE (`x = 3, y = 3, rule = B3/S23` header, `#` comment
 * lines, `<count><tag>` runs with `b` dead, `o` live, `$` end of row, `!` end) and plain
 * pictures (rows of `.` dead and `O`, `#` or `*` live; `!` lines are comments, as in
 * `.cells` files).
 */

/** A pattern: its box and the live cells in it (x right, y down, from the top-left). */
export interface Pattern {
  width: number;
  height: number;
  cells: Array<[number, number]>;
}

/** Pattern text or a name that cannot be used; the message names the problem. */
export class PatternError extends Error {
  override readonly name = 'PatternError';
}

/** Bounds checked while reading, so a short text cannot ask for billions of cells. */
export interface PatternBounds {
  maxWidth: number;
  maxHeight: number;
  maxLiveCells: number;
}

const PICTURE_ROW = /^[.O#*]+$/;

/** True when every non-blank line is a picture row or a `!` comment (and one is a row). */
export function looksLikePicture(text: string): boolean {
  const lines = text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '');
  return (
    lines.some((line) => PICTURE_ROW.test(line)) &&
    lines.every((line) => PICTURE_ROW.test(line) || line.startsWith('!'))
  );
}

export function parsePicture(text: string, bounds: PatternBounds): Pattern {
  const rows = text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => !line.startsWith('!'));
  // Blank lines inside the picture are empty rows; around it they are just spacing.
  while (rows.length > 0 && rows[0] === '') rows.shift();
  while (rows.length > 0 && rows[rows.length - 1] === '') rows.pop();
  const width = rows.reduce((widest, row) => Math.max(widest, row.length), 0);
  checkSize(width, rows.length, bounds);
  const cells: Array<[number, number]> = [];
  rows.forEach((row, y) => {
    for (let x = 0; x < row.length; x += 1) {
      if (row[x] !== '.') cells.push([x, y]);
    }
  });
  checkLiveCells(cells.length, bounds);
  return { width, height: rows.length, cells };
}

const HEADER = /^x\s*=/i;

export function parseRle(text: string, bounds: PatternBounds): Pattern {
  const lines = text.split(/\r?\n/);
  let header: { width: number; height: number } | undefined;
  const body: Array<{ line: number; text: string }> = [];
  lines.forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    if (header === undefined && body.length === 0 && HEADER.test(line)) {
      header = parseHeader(line, index + 1, bounds);
      return;
    }
    body.push({ line: index + 1, text: line });
  });

  const cells: Array<[number, number]> = [];
  let x = 0;
  let y = 0;
  let width = 0;
  let height = 0;
  let count = '';
  const limitWidth = header?.width ?? bounds.maxWidth;
  const limitHeight = header?.height ?? bounds.maxHeight;
  const tooBig = (where: string, what: string): PatternError =>
    new PatternError(
      header
        ? `RLE ${where}: ${what} past the header's x = ${header.width}, y = ${header.height}`
        : `RLE ${where}: ${what} past the largest pattern (${bounds.maxWidth} x ${bounds.maxHeight})`,
    );
  reading: for (const { line, text: content } of body) {
    for (let column = 0; column < content.length; column += 1) {
      const char = content[column];
      const where = `line ${line}, column ${column + 1}`;
      if (/[0-9]/.test(char)) {
        count += char;
        if (count.length > 9)
          throw new PatternError(`RLE ${where}: run count ${count}… is too large`);
        continue;
      }
      if (/\s/.test(char)) continue;
      const run = count === '' ? 1 : Number(count);
      if (run === 0)
        throw new PatternError(`RLE ${where}: run count 0 before ${JSON.stringify(char)}`);
      count = '';
      if (char === '!') break reading;
      if (char === '$') {
        y += run;
        x = 0;
        continue;
      }
      if (char !== 'b' && char !== 'o')
        throw new PatternError(
          `RLE ${where}: ${JSON.stringify(char)} is not a cell tag (b dead, o live, $ end of row, ! end)`,
        );
      if (x + run > limitWidth) throw tooBig(where, `row ${y} runs to x = ${x + run}`);
      if (y + 1 > limitHeight) throw tooBig(where, `row ${y} is`);
      if (char === 'o') {
        checkLiveCells(cells.length + run, bounds);
        for (let i = 0; i < run; i += 1) cells.push([x + i, y]);
      }
      x += run;
      width = Math.max(width, x);
      height = Math.max(height, y + 1);
    }
  }
  if (count !== '')
    throw new PatternError(`RLE ends with the run count ${count} and no tag after it`);
  const pattern = header
    ? { width: header.width, height: header.height, cells }
    : { width, height, cells };
  if (pattern.width === 0 || pattern.height === 0)
    throw new PatternError('pattern is empty: no cells (give at least one run, or an x/y header)');
  return pattern;
}

function parseHeader(
  line: string,
  lineNumber: number,
  bounds: PatternBounds,
): { width: number; height: number } {
  const fields = new Map<string, string>();
  for (const part of line.split(',')) {
    const match = /^\s*([a-z]+)\s*=\s*(\S*)\s*$/i.exec(part);
    if (!match)
      throw new PatternError(
        `RLE header (line ${lineNumber}) ${JSON.stringify(part.trim())} is not key = value`,
      );
    fields.set(match[1].toLowerCase(), match[2]);
  }
  const size = (key: 'x' | 'y'): number => {
    const value = fields.get(key);
    if (value === undefined || !/^\d{1,9}$/.test(value))
      throw new PatternError(
        `RLE header (line ${lineNumber}): ${key} = ${value ?? '(missing)'} is not a whole number`,
      );
    return Number(value);
  };
  const width = size('x');
  const height = size('y');
  checkSize(width, height, bounds);
  return { width, height };
}

function checkSize(width: number, height: number, bounds: PatternBounds): void {
  if (width > bounds.maxWidth || height > bounds.maxHeight)
    throw new PatternError(
      `pattern is ${width} x ${height}, larger than the largest allowed (${bounds.maxWidth} x ${bounds.maxHeight})`,
    );
}

function checkLiveCells(count: number, bounds: PatternBounds): void {
  if (count > bounds.maxLiveCells)
    throw new PatternError(`pattern has more than ${bounds.maxLiveCells} live cells`);
}
