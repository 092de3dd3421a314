export { recognize, countByMotif } from './recognize';
export { MOTIFS, MOTIF_DEFINITIONS, type MotifInfo } from './motif-library';
export { STANDARD_RECOGNIZER_PACKS, type RecognizerPack } from './recognizer-packs';
export type { MotifMatch, MotifClass, Heading, Cell, MotifDefinition } from './motif-types';
