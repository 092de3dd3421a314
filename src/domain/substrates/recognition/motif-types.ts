/** What kind of thing a motif is. */
export type MotifClass = 'still_life' | 'oscillator' | 'spaceship';

/** The diagonal a glider travels, with `y` growing downward (S = +y, E = +x). */
export type Heading = 'NE' | 'NW' | 'SE' | 'SW';

/** A cell as `[x, y]`. */
export type Cell = [number, number];

/** One motif occurrence found on a grid. */
export interface MotifMatch {
  motif: string;
  class: MotifClass;
  /** Top-left of the matched phase's bounding box, in 0..width-1 × 0..height-1. */
  x: number;
  y: number;
  /** Oscillators and spaceships only: 0..period-1, numbered as in the motif library. */
  phase?: number;
  /** Spaceships only. */
  heading?: Heading;
}

/** A motif as the library stores it: its phases in the canonical orientation. */
export interface MotifDefinition {
  motif: string;
  class: MotifClass;
  /** `phases[k + 1]` is the generation after `phases[k]`; `phases.length` is the period. */
  phases: Cell[][];
  /** Spaceships only: the direction the canonical orientation travels, as a vector. */
  direction?: Cell;
}
