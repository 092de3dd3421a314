import type { Cell, Heading, MotifClass, MotifDefinition } from './motif-types';
import { ORIENTATIONS, headingOf, orientCells, orientPoint, shapeKey } from './orientations';

/** One cell a template looks at, relative to its anchor, and whether it must be live. */
export interface TemplateProbe {
  dx: number;
  dy: number;
  live: boolean;
}

/** One phase of one motif in one orientation, ready to be matched. */
export interface MotifTemplate {
  motif: string;
  class: MotifClass;
  /** Left out for still lifes, whose only phase is not worth reporting. */
  phase?: number;
  heading?: Heading;
  /** Size of the phase's bounding box. */
  width: number;
  height: number;
  /**
   * Column of the anchor, the first live cell in row-major order; it is always in row 0,
   * since the top row of a bounding box holds a live cell.
   */
  anchorX: number;
  /** The live cells, relative to the anchor. */
  live: Cell[];
  /**
   * Every cell of the bounding box and the one-cell ring around it, relative to the anchor,
   * nearest the anchor first so a mismatch on a busy grid is usually seen within a few reads.
   */
  probes: TemplateProbe[];
}

/**
 * Every distinct orientation of every phase of the given motifs, bigger motifs first (so a
 * beacon is tried before anything that could be part of one). An orientation is kept only when
 * its phase 0 is a shape not seen yet: Life commutes with rotations and reflections, so then
 * none of its other phases has been seen either, and each shape has exactly one phase number.
 */
export function buildMotifTemplates(definitions: readonly MotifDefinition[]): MotifTemplate[] {
  const templates: MotifTemplate[] = [];
  for (const definition of definitions) {
    const seen = new Set<string>();
    for (const orientation of ORIENTATIONS) {
      const phases = definition.phases.map((cells) => orientCells(orientation, cells));
      if (seen.has(shapeKey(phases[0]))) continue;
      const heading = definition.direction
        ? headingOf(orientPoint(orientation, definition.direction))
        : undefined;
      phases.forEach((cells, phase) => {
        seen.add(shapeKey(cells));
        templates.push(
          templateOf(
            definition,
            cells,
            definition.class === 'still_life' ? undefined : phase,
            heading,
          ),
        );
      });
    }
  }
  return templates
    .map((template, order) => ({ template, order }))
    .sort((p, q) => q.template.live.length - p.template.live.length || p.order - q.order)
    .map(({ template }) => template);
}

function templateOf(
  definition: MotifDefinition,
  cells: readonly Cell[],
  phase: number | undefined,
  heading: Heading | undefined,
): MotifTemplate {
  const width = Math.max(...cells.map(([x]) => x)) + 1;
  const height = Math.max(...cells.map(([, y]) => y)) + 1;
  const [anchorX] = cells[0];
  const liveKeys = new Set(cells.map(([x, y]) => y * width + x));
  const probes: TemplateProbe[] = [];
  for (let y = -1; y <= height; y++) {
    for (let x = -1; x <= width; x++) {
      const inside = x >= 0 && x < width && y >= 0 && y < height;
      probes.push({ dx: x - anchorX, dy: y, live: inside && liveKeys.has(y * width + x) });
    }
  }
  const distance = (probe: TemplateProbe): number =>
    Math.max(Math.abs(probe.dx), Math.abs(probe.dy));
  probes.sort((p, q) => distance(p) - distance(q) || p.dy - q.dy || p.dx - q.dx);
  return {
    motif: definition.motif,
    class: definition.class,
    ...(phase === undefined ? {} : { phase }),
    ...(heading === undefined ? {} : { heading }),
    width,
    height,
    anchorX,
    live: cells.map(([x, y]): Cell => [x - anchorX, y]),
    probes,
  };
}
