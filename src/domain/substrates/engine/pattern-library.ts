/**
 * Named patterns, as RLE (LifeWiki orientations). Spaceships head west (`lwss`, `mwss`,
 * `hwss`) or south-east (`glider`). `single` is one live cell, the usual start of an
 * elementary automaton.
 */
export const NAMED_PATTERNS: Readonly<Record<string, string>> = {
  single: 'x = 1, y = 1\no!',
  // still lifes
  block: 'x = 2, y = 2\n2o$2o!',
  beehive: 'x = 4, y = 3\nb2ob$o2bo$b2o!',
  loaf: 'x = 4, y = 4\nb2ob$o2bo$bobo$2bo!',
  boat: 'x = 3, y = 3\n2ob$obo$bo!',
  tub: 'x = 3, y = 3\nbob$obo$bo!',
  // oscillators
  blinker: 'x = 3, y = 1\n3o!',
  toad: 'x = 4, y = 2\nb3o$3o!',
  beacon: 'x = 4, y = 4\n2o2b$2o2b$2b2o$2b2o!',
  pulsar:
    'x = 13, y = 13\n2b3o3b3o2b2$o4bobo4bo$o4bobo4bo$o4bobo4bo$2b3o3b3o2b2$2b3o3b3o2b$o4bobo4bo$o4bobo4bo$o4bobo4bo2$2b3o3b3o!',
  pentadecathlon: 'x = 10, y = 3\n2bo4bo2b$2ob4ob2o$2bo4bo!',
  // spaceships
  glider: 'x = 3, y = 3\nbob$2bo$3o!',
  lwss: 'x = 5, y = 4\nbo2bo$o4b$o3bo$4o!',
  mwss: 'x = 6, y = 5\n3bo2b$bo3bo$o5b$o4bo$5o!',
  hwss: 'x = 7, y = 5\n3b2o2b$bo4bo$o6b$o5bo$6o!',
  // methuselahs and a gun
  'r-pentomino': 'x = 3, y = 3\nb2o$2ob$bo!',
  acorn: 'x = 7, y = 3\nbo5b$3bo3b$2o2b3o!',
  diehard: 'x = 8, y = 3\n6bob$2o6b$bo3b3o!',
  'gosper-glider-gun':
    'x = 36, y = 9\n24bo11b$22bobo11b$12b2o6b2o12b2o$11bo3bo4b2o12b2o$2o8bo5bo3b2o14b$2o8bo3bob2o4bobo11b$10bo5bo7bo11b$11bo3bo20b$12b2o22b!',
};

export const PATTERN_NAMES: readonly string[] = Object.keys(NAMED_PATTERNS).sort();
