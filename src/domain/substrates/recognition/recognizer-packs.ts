import { MOTIFS } from './motif-library';
import type { MotifClass } from './motif-types';

/** A named subset of the motif library, as the recognizers registry lists it. */
export interface RecognizerPack {
  recognizer_id: string;
  name: string;
  description: string;
  version: string;
  /** The rule the motifs are motifs of; on another rule they are just shapes. */
  rule: string;
  /** Motif names, handed to `recognize` as its `motifNames`. */
  motifs: string[];
}

const motifsOfClass = (motifClass: MotifClass): string[] =>
  MOTIFS.filter((info) => info.class === motifClass).map((info) => info.motif);

/** The packs every deployment can use. */
export const STANDARD_RECOGNIZER_PACKS: readonly RecognizerPack[] = [
  {
    recognizer_id: 'life-standard',
    name: 'Life standard motifs',
    description:
      'Isolated still lifes (block, beehive, loaf, boat, tub), oscillators (blinker, toad, beacon) and gliders, with phase and heading.',
    version: '1',
    rule: 'B3/S23',
    motifs: MOTIFS.map((info) => info.motif),
  },
  {
    recognizer_id: 'life-still-lifes',
    name: 'Life still lifes',
    description: 'Isolated block, beehive, loaf, boat and tub.',
    version: '1',
    rule: 'B3/S23',
    motifs: motifsOfClass('still_life'),
  },
  {
    recognizer_id: 'life-spaceships',
    name: 'Life spaceships',
    description: 'Isolated gliders, with phase and heading.',
    version: '1',
    rule: 'B3/S23',
    motifs: motifsOfClass('spaceship'),
  },
];
