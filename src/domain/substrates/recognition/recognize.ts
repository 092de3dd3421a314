import type { CellGrid } from '../engine/types';
import { MOTIF_DEFINITIONS } from './motif-library';
import { buildMotifTemplates, type MotifTemplate } from './motif-templates';
import type { MotifMatch } from './motif-types';

/** Built once from the constant library; never changed afterwards. */
const ALL_TEMPLATES: readonly MotifTemplate[] = buildMotifTemplates(MOTIF_DEFINITIONS);
const KNOWN_MOTIFS = new Set(MOTIF_DEFINITIONS.map((definition) => definition.motif));

/**
 * Finds isolated Life motifs: a match is the exact live pattern of one phase in one orientation
 * with every other cell of its bounding box and of the one-cell ring around it dead (so a block
 * inside a bigger blob is not one). Cells wrap around the torus. Each live cell is in at most one
 * match. `motifNames` limits the search to those motifs (a recognizer pack); unknown names throw.
 */
export function recognize(grid: CellGrid, motifNames?: readonly string[]): MotifMatch[] {
  const templates = selectTemplates(motifNames).filter(
    // A ring that wraps onto itself or onto the pattern cannot be "dead around it".
    (template) => template.width + 2 <= grid.width && template.height + 2 <= grid.height,
  );
  if (templates.length === 0) return [];
  const byNeighbourhood = templatesByNeighbourhood(templates);
  const claimed = new Set<number>();
  const cellKey = (x: number, y: number): number =>
    mod(y, grid.height) * grid.width + mod(x, grid.width);
  const matches: MotifMatch[] = [];

  for (const [x, y] of grid.liveCells()) {
    // Most live cells of a soup have a neighbourhood no template has, and stop here.
    const candidates = byNeighbourhood[neighbourhoodOf((dx, dy) => grid.get(x + dx, y + dy))];
    if (!candidates || claimed.has(cellKey(x, y))) continue;
    const template = candidates.find(
      (candidate) =>
        candidate.probes.every(({ dx, dy, live }) => grid.get(x + dx, y + dy) === live) &&
        candidate.live.every(([dx, dy]) => !claimed.has(cellKey(x + dx, y + dy))),
    );
    if (!template) continue;
    for (const [dx, dy] of template.live) claimed.add(cellKey(x + dx, y + dy));
    matches.push(matchOf(template, mod(x - template.anchorX, grid.width), y));
  }
  return matches;
}

/** How many matches of each motif (motifs with none are left out). */
export function countByMotif(matches: readonly MotifMatch[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const { motif } of matches) counts[motif] = (counts[motif] ?? 0) + 1;
  return counts;
}

function selectTemplates(motifNames: readonly string[] | undefined): readonly MotifTemplate[] {
  if (motifNames === undefined) return ALL_TEMPLATES;
  const unknown = motifNames.filter((name) => !KNOWN_MOTIFS.has(name));
  if (unknown.length > 0) throw new RangeError(`unknown motifs: ${unknown.join(', ')}`);
  const wanted = new Set(motifNames);
  return ALL_TEMPLATES.filter((template) => wanted.has(template.motif));
}

const NEIGHBOURS: ReadonlyArray<readonly [number, number]> = [
  [-1, -1],
  [0, -1],
  [1, -1],
  [-1, 0],
  [1, 0],
  [-1, 1],
  [0, 1],
  [1, 1],
];

/** The eight cells around an anchor as a bit mask (bit i = `NEIGHBOURS[i]` live). */
function neighbourhoodOf(isLive: (dx: number, dy: number) => boolean): number {
  let mask = 0;
  NEIGHBOURS.forEach(([dx, dy], bit) => {
    if (isLive(dx, dy)) mask |= 1 << bit;
  });
  return mask;
}

/**
 * Templates grouped by the neighbourhood their anchor must have (every template fixes all
 * eight cells around its anchor: they lie in its bounding box or its ring), order kept.
 */
function templatesByNeighbourhood(
  templates: readonly MotifTemplate[],
): Array<MotifTemplate[] | undefined> {
  const groups: Array<MotifTemplate[] | undefined> = new Array<MotifTemplate[] | undefined>(256);
  for (const template of templates) {
    const live = new Set(template.probes.filter((p) => p.live).map(({ dx, dy }) => `${dx},${dy}`));
    const mask = neighbourhoodOf((dx, dy) => live.has(`${dx},${dy}`));
    (groups[mask] ??= []).push(template);
  }
  return groups;
}

function matchOf(template: MotifTemplate, x: number, y: number): MotifMatch {
  return {
    motif: template.motif,
    class: template.class,
    x,
    y,
    ...(template.phase === undefined ? {} : { phase: template.phase }),
    ...(template.heading === undefined ? {} : { heading: template.heading }),
  };
}

function mod(value: number, modulus: number): number {
  return ((value % modulus) + modulus) % modulus;
}
