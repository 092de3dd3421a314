import { cellRuns } from './cell-runs';
import { escapeXml } from '../../../lib/escape-xml';
import { isCropped, latticeWindow } from './lattice-window';
import type { RenderInput } from './render-input';
import { summarizeSpec } from './spec-summary';

/** Lattices wider or taller than this are drawn as a window around the live cells. */
export const SVG_MAX_CELLS = 512;
/** Cells are scaled up to whole pixels so the picture is about this wide (512..1024 px). */
const TARGET_WIDTH_PX = 1024;
const CAPTION_HEIGHT_PX = 24;
const BACKGROUND = '#0d1117';
const LIVE = '#7ee787';
const CAPTION = '#c9d1d9';

/**
 * The lattice as SVG: a dark background, live cells as one path of horizontal runs (in cell
 * units, scaled by a transform, so large states stay compact) and a caption.
 */
export function renderSvg(input: RenderInput): string {
  const { grid } = input;
  const window = latticeWindow(grid, input.bounding_box, {
    width: SVG_MAX_CELLS,
    height: SVG_MAX_CELLS,
  });
  const cellPx = Math.max(1, Math.floor(TARGET_WIDTH_PX / window.width));
  const widthPx = window.width * cellPx;
  const latticeHeightPx = window.height * cellPx;
  const heightPx = latticeHeightPx + CAPTION_HEIGHT_PX;
  const path = cellRuns(grid, window)
    .map(({ x, y, length }) => `M${x} ${y}h${length}v1h-${length}z`)
    .join('');
  const rule = summarizeSpec(input.spec).rule ?? 'rule unknown';
  const caption = `tick ${input.tick} · population ${input.population} · ${rule}`;
  const shown = `cells x ${window.x}..${window.x + window.width - 1}, y ${window.y}..${window.y + window.height - 1}`;
  const description = isCropped(grid, window)
    ? `Cropped: ${shown} of the ${grid.width} × ${grid.height} lattice, around the live cells.`
    : `The whole ${grid.width} × ${grid.height} lattice.`;

  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${widthPx}" height="${heightPx}" viewBox="0 0 ${widthPx} ${heightPx}">`,
    `<title>${escapeXml(`${input.deployment_id} at tick ${input.tick}`)}</title>`,
    `<desc>${escapeXml(description)}</desc>`,
    `<rect width="${widthPx}" height="${heightPx}" fill="${BACKGROUND}"/>`,
    ...(path
      ? [
          `<path transform="scale(${cellPx})" fill="${LIVE}" shape-rendering="crispEdges" d="${path}"/>`,
        ]
      : []),
    `<text x="6" y="${latticeHeightPx + 17}" fill="${CAPTION}" font-family="monospace" font-size="14">${escapeXml(caption)}</text>`,
    '</svg>',
  ].join('\n');
}
