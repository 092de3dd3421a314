/** A constitutional envelope: the bounds a spec and its run must stay within. */
export interface Envelope {
  envelope_id: string;
  name: string;
  description: string;
  version: string;
  /** Scaffolds the envelope applies to. */
  scaffolds: Array<'life-lattice' | 'elementary-1d'>;
  max_width: number;
  max_height: number;
  max_ticks: number;
  max_wall_seconds: number;
  /** Canonical rules allowed (`B3/S23`, `W110`); empty: any rule of the scaffold. */
  allowed_rules: string[];
}

/** The envelopes, in id order (the registry pages them by id). */
export const ENVELOPES: readonly Envelope[] = [
  {
    envelope_id: 'conway-classroom',
    name: 'Conway classroom',
    description:
      "Conway's Life only, on lattices up to 256 x 256 for up to 10,000 ticks: small, quick, well-known runs.",
    version: '1',
    scaffolds: ['life-lattice'],
    max_width: 256,
    max_height: 256,
    max_ticks: 10_000,
    max_wall_seconds: 60,
    allowed_rules: ['B3/S23'],
  },
  {
    envelope_id: 'elementary-standard',
    name: 'Elementary standard',
    description:
      'Any Wolfram elementary rule on rings of up to 65,536 cells for up to 100,000 ticks.',
    version: '1',
    scaffolds: ['elementary-1d'],
    max_width: 65_536,
    max_height: 1,
    max_ticks: 100_000,
    max_wall_seconds: 300,
    allowed_rules: [],
  },
  {
    envelope_id: 'lattice-large',
    name: 'Lattice large',
    description:
      'Any B/S rule on lattices up to 4096 x 4096 for up to 1,000,000 ticks, within an hour of wall time.',
    version: '1',
    scaffolds: ['life-lattice'],
    max_width: 4096,
    max_height: 4096,
    max_ticks: 1_000_000,
    max_wall_seconds: 3600,
    allowed_rules: [],
  },
  {
    envelope_id: 'lattice-standard',
    name: 'Lattice standard',
    description:
      'Any B/S rule on lattices up to 1024 x 1024 for up to 100,000 ticks, within ten minutes of wall time.',
    version: '1',
    scaffolds: ['life-lattice'],
    max_width: 1024,
    max_height: 1024,
    max_ticks: 100_000,
    max_wall_seconds: 600,
    allowed_rules: [],
  },
];
