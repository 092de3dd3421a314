import { renderMarkdown } from '../../../../src/domain/substrates/render';
import { liveCellsGrid, pictureCells } from '../live-cells-grid';
import { renderInputFor } from './render-fixtures';

const pictureOf = (markdown: string): string[] => {
  const fenced = /```text\n([\s\S]*?)\n```/.exec(markdown);
  return fenced ? fenced[1].split('\n') : [];
};

describe('renderMarkdown', () => {
  const glider = ['.O.', '..O', 'OOO'];
  const input = renderInputFor(liveCellsGrid(32, 16, pictureCells(glider, 10, 5)), {
    motifs: { glider: 1 },
  });
  const markdown = renderMarkdown(input);

  it('reports the deployment, spec and state', () => {
    expect(markdown.startsWith('# Substrate deployment `dep_TEST`\n')).toBe(true);
    for (const row of [
      '| scaffold | life-lattice |',
      '| rule | B3/S23 |',
      '| size | 32 × 16 |',
      '| ticks | 100 |',
      '| start | pattern glider |',
      '| stage | observing |',
      '| tick | 12 |',
      '| population | 5 |',
      '| bounding box | x 10, y 5, 3 × 3 |',
      `| digest | ${'ab'.repeat(32)} |`,
      `| manifest sha256 | ${'cd'.repeat(32)} |`,
      '| glider | 1 |',
    ])
      expect(markdown).toContain(row);
  });

  it('draws the bounding box with a one-cell margin', () => {
    expect(markdown).toContain('x 9..13, y 4..8:');
    expect(pictureOf(markdown)).toEqual(['.....', '..#..', '...#.', '.###.', '.....']);
  });

  it('reads a seeded start and leaves out what the spec lacks', () => {
    const seeded = renderMarkdown(
      renderInputFor(liveCellsGrid(8, 8, []), {
        spec: { params: { seed: 42, density: 0.25 } },
        manifest_sha256: null,
      }),
    );
    expect(seeded).toContain('| start | seed 42, density 0.25 |');
    expect(seeded).toContain('| rule | — |');
    expect(seeded).toContain('| manifest sha256 | — |');
    expect(seeded).toContain('| bounding box | none (no live cells) |');
    expect(seeded).toContain('No live cells.');
    expect(seeded).not.toContain('## Motifs');
  });

  it('escapes table cells', () => {
    const odd = renderMarkdown(
      renderInputFor(liveCellsGrid(8, 8, []), { spec: { pattern: 'x = 3|\nbo$!' } }),
    );
    expect(odd).toContain('| start | pattern x = 3\\| bo$! |');
  });

  it('cuts the picture to 64 × 64 cells around the bounding box', () => {
    const cells = Array.from({ length: 200 }, (_, i): [number, number] => [50 + i, 20 + i]);
    const big = renderMarkdown(renderInputFor(liveCellsGrid(300, 300, cells)));
    const rows = pictureOf(big);
    expect(rows).toHaveLength(64);
    expect(rows.every((row) => row.length === 64)).toBe(true);
    // Centred on the box x 50..249, y 20..219: window x 118..181, y 88..151, on the diagonal.
    expect(big).toContain('x 118..181, y 88..151:');
    rows.forEach((row, i) => expect(row.indexOf('#')).toBe(i));
  });
});
