import { cellsFromPicture } from './cells-from-picture';
import type { MotifClass, MotifDefinition } from './motif-types';

/**
 * Conway's Life (B3/S23) motifs. Each is stored as its phases in one orientation; phase 0 is
 * the first picture listed and each next picture is the following generation, so a match's
 * `phase` counts generations from that picture (in the matched orientation):
 * - blinker: 0 horizontal, 1 vertical;
 * - toad: 0 the two offset rows of three, 1 the 4 × 4 form;
 * - beacon: 0 two blocks touching at a corner, 1 the same with both inner corner cells dead;
 * - glider: 0 is `bob$2bo$3o!`, heading SE; phases 1..3 follow, phase 4 would be phase 0 moved
 *   by (+1, +1).
 * Order matters: bigger motifs are tried first, and among equal sizes the earlier one.
 */
export const MOTIF_DEFINITIONS: readonly MotifDefinition[] = [
  { motif: 'block', class: 'still_life', phases: [cellsFromPicture(['OO', 'OO'])] },
  { motif: 'beehive', class: 'still_life', phases: [cellsFromPicture(['.OO.', 'O..O', '.OO.'])] },
  {
    motif: 'loaf',
    class: 'still_life',
    phases: [cellsFromPicture(['.OO.', 'O..O', '.O.O', '..O.'])],
  },
  { motif: 'boat', class: 'still_life', phases: [cellsFromPicture(['OO.', 'O.O', '.O.'])] },
  { motif: 'tub', class: 'still_life', phases: [cellsFromPicture(['.O.', 'O.O', '.O.'])] },
  {
    motif: 'blinker',
    class: 'oscillator',
    phases: [cellsFromPicture(['OOO']), cellsFromPicture(['O', 'O', 'O'])],
  },
  {
    motif: 'toad',
    class: 'oscillator',
    phases: [
      cellsFromPicture(['.OOO', 'OOO.']),
      cellsFromPicture(['..O.', 'O..O', 'O..O', '.O..']),
    ],
  },
  {
    motif: 'beacon',
    class: 'oscillator',
    phases: [
      cellsFromPicture(['OO..', 'OO..', '..OO', '..OO']),
      cellsFromPicture(['OO..', 'O...', '...O', '..OO']),
    ],
  },
  {
    motif: 'glider',
    class: 'spaceship',
    direction: [1, 1],
    phases: [
      cellsFromPicture(['.O.', '..O', 'OOO']),
      cellsFromPicture(['O.O', '.OO', '.O.']),
      cellsFromPicture(['..O', 'O.O', '.OO']),
      cellsFromPicture(['O..', '.OO', 'OO.']),
    ],
  },
];

/** One line per motif, as a recognizer registry lists them. */
export interface MotifInfo {
  motif: string;
  class: MotifClass;
  period: number;
}

/** Every motif the library knows, with its class and period (1 for still lifes). */
export const MOTIFS: readonly MotifInfo[] = MOTIF_DEFINITIONS.map((definition) => ({
  motif: definition.motif,
  class: definition.class,
  period: definition.phases.length,
}));
