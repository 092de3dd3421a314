import { renderSvg } from '../../../../src/domain/substrates/render';
import { liveCellsGrid, pictureCells } from '../live-cells-grid';
import { renderInputFor } from './render-fixtures';

/** A small well-formedness check: tags balance, and text holds no raw `<` or stray `&`. */
function expectWellFormed(xml: string): void {
  const stack: string[] = [];
  const tag = /<(\/?)([a-zA-Z][\w:-]*)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>/g;
  let last = 0;
  for (const match of xml.matchAll(tag)) {
    const text = xml.slice(last, match.index);
    expect(text).not.toMatch(/[<>]|&(?!(amp|lt|gt|quot|apos);)/);
    last = match.index + match[0].length;
    const [, closing, name, , selfClosing] = match;
    if (selfClosing) continue;
    if (closing) expect(stack.pop()).toBe(name);
    else stack.push(name);
  }
  expect(xml.slice(last).trim()).toBe('');
  expect(stack).toEqual([]);
}

const pathData = (svg: string): string => /<path [^>]*d="([^"]*)"/.exec(svg)?.[1] ?? '';
const runsIn = (d: string): Array<[number, number, number]> =>
  [...d.matchAll(/M(\d+) (\d+)h(\d+)v1h-(\d+)z/g)].map((m) => [+m[1], +m[2], +m[3]]);

describe('renderSvg', () => {
  it('draws a glider as one path of horizontal runs', () => {
    const phase0 = renderSvg(
      renderInputFor(liveCellsGrid(8, 8, pictureCells(['.O.', '..O', 'OOO'], 2, 3))),
    );
    expect(phase0.startsWith('<svg')).toBe(true);
    expectWellFormed(phase0);
    expect(pathData(phase0)).toBe('M3 3h1v1h-1zM4 4h1v1h-1zM2 5h3v1h-3z');

    const phase1 = renderSvg(
      renderInputFor(liveCellsGrid(8, 8, pictureCells(['O.O', '.OO', '.O.'], 2, 3))),
    );
    expect(runsIn(pathData(phase1))).toEqual([
      [2, 3, 1],
      [4, 3, 1],
      [3, 4, 2],
      [3, 5, 1],
    ]);
  });

  it('sizes the picture from the lattice and captions it', () => {
    const svg = renderSvg(renderInputFor(liveCellsGrid(100, 50, pictureCells(['OO', 'OO'], 1, 1))));
    // 1024 / 100 cells → 10 px a cell; the caption strip adds 24 px.
    expect(svg).toMatch(/^<svg [^>]*width="1000" height="524" viewBox="0 0 1000 524"/);
    expect(svg).toContain('transform="scale(10)"');
    expect(svg).toContain('tick 12 · population 4 · B3/S23');
    expect(svg).toContain('<desc>The whole 100 × 50 lattice.</desc>');
  });

  it('escapes text', () => {
    const svg = renderSvg(
      renderInputFor(liveCellsGrid(8, 8, []), {
        deployment_id: 'dep_<x>&"y"',
        spec: { rule: 'B3/S23 <&>' },
      }),
    );
    expectWellFormed(svg);
    expect(svg).toContain('<title>dep_&lt;x&gt;&amp;&quot;y&quot; at tick 12</title>');
    expect(svg).not.toContain('<path');
  });

  it('draws a window of at most 512 × 512 cells around the live cells of a big lattice', () => {
    const row = Array.from({ length: 1000 }, (_, i): [number, number] => [600 + i, 2040]);
    const grid = liveCellsGrid(2048, 2048, [...row, [1000, 1990]]);
    const svg = renderSvg(renderInputFor(grid));
    expectWellFormed(svg);
    expect(svg).toMatch(/width="1024" height="1048"/);
    // Bounding box x 600..1599, y 1990..2040 → window x 844..1355, y 1536..2047 (clamped).
    expect(svg).toContain('Cropped: cells x 844..1355, y 1536..2047 of the 2048 × 2048 lattice');
    const runs = runsIn(pathData(svg));
    expect(runs).toEqual([
      [1000 - 844, 1990 - 1536, 1],
      [0, 2040 - 1536, 512],
    ]);
    for (const [x, , length] of runs) expect(x + length).toBeLessThanOrEqual(512);
  });
});
