import type { Box, CellGrid } from '../engine/types';
import { latticeWindow } from './lattice-window';
import { codeSpan, markdownCell } from './markdown-text';
import type { RenderInput } from './render-input';
import { summarizeSpec } from './spec-summary';

/** The cell picture shows at most this many cells each way, around the bounding box. */
export const MARKDOWN_MAX_CELLS = 64;

/** A readable report of one observed state: spec, observation, motifs and a cell picture. */
export function renderMarkdown(input: RenderInput): string {
  const spec = summarizeSpec(input.spec);
  const { grid } = input;
  const lines = [
    `# Substrate deployment ${codeSpan(input.deployment_id)}`,
    '',
    '## Spec',
    '',
    ...table(
      ['parameter', 'value'],
      [
        ['scaffold', spec.scaffold ?? '—'],
        ['rule', spec.rule ?? '—'],
        ['size', `${grid.width} × ${grid.height}`],
        ['ticks', spec.ticks ?? '—'],
        ['start', spec.start ?? '—'],
      ],
    ),
    '',
    '## State',
    '',
    ...table(
      ['field', 'value'],
      [
        ['stage', input.stage],
        ['tick', String(input.tick)],
        ['population', String(input.population)],
        ['bounding box', boxText(input.bounding_box)],
        ['digest', input.digest],
        ['manifest sha256', input.manifest_sha256 ?? '—'],
      ],
    ),
  ];
  if (input.motifs) {
    const counts = Object.entries(input.motifs);
    lines.push('', '## Motifs', '');
    if (counts.length === 0) lines.push('None found.');
    else
      lines.push(
        ...table(
          ['motif', 'count'],
          counts.map(([m, n]) => [m, String(n)]),
        ),
      );
  }
  lines.push('', '## Cells', '', ...cellPicture(grid, input.bounding_box));
  return `${lines.join('\n')}\n`;
}

function table(header: [string, string], rows: Array<[string, string]>): string[] {
  return [
    `| ${header.join(' | ')} |`,
    '| --- | --- |',
    ...rows.map(([name, value]) => `| ${markdownCell(name)} | ${markdownCell(value)} |`),
  ];
}

function boxText(box: Box | null): string {
  return box ? `x ${box.x}, y ${box.y}, ${box.width} × ${box.height}` : 'none (no live cells)';
}

/** The bounding box and a one-cell margin, cut to the picture's limit, `#` live, `.` dead. */
function cellPicture(grid: CellGrid, box: Box | null): string[] {
  if (!box) return ['No live cells.'];
  const window = latticeWindow(grid, box, {
    width: Math.min(box.width + 2, MARKDOWN_MAX_CELLS),
    height: Math.min(box.height + 2, MARKDOWN_MAX_CELLS),
  });
  const rows: string[] = [];
  for (let y = window.y; y < window.y + window.height; y++) {
    let row = '';
    for (let x = window.x; x < window.x + window.width; x++) row += grid.get(x, y) ? '#' : '.';
    rows.push(row);
  }
  const last = (start: number, size: number): number => start + size - 1;
  return [
    `x ${window.x}..${last(window.x, window.width)}, y ${window.y}..${last(window.y, window.height)}:`,
    '',
    '```text',
    ...rows,
    '```',
  ];
}
