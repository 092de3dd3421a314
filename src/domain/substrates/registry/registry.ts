import { nameCursor } from '../../../lib/cursor';
import { NotFound } from '../../../lib/errors';
import { MOTIFS, STANDARD_RECOGNIZER_PACKS, type RecognizerPack } from '../recognition';
import { CERTIFICATION_PACKS } from './certification-packs';
import { ENVELOPES } from './envelopes';
import { SCAFFOLDS } from './scaffolds';

/** A static registry: entries in id order, paged like every list (`limit`, `cursor`). */
function registry<T>(what: string, entries: readonly T[], idOf: (entry: T) => string) {
  const sorted = [...entries].sort((a, b) => idOf(a).localeCompare(idOf(b)));
  return {
    list(query: { limit?: number; cursor?: string }) {
      const limit = query.limit ?? 50;
      const after = query.cursor ? nameCursor.decode(query.cursor) : undefined;
      const rest = after === undefined ? sorted : sorted.filter((e) => idOf(e) > after);
      const items = rest.slice(0, limit);
      const last = items[items.length - 1];
      return {
        items,
        next_cursor: rest.length > limit && last ? nameCursor.encode(idOf(last)) : null,
      };
    },
    find: (id: string): T | undefined => sorted.find((e) => idOf(e) === id),
    get(id: string): T {
      const entry = sorted.find((e) => idOf(e) === id);
      if (!entry) {
        const known = sorted.map(idOf).join(', ');
        throw new NotFound(`${what} ${id} not found; known: ${known}`);
      }
      return entry;
    },
  };
}

export const scaffoldRegistry = registry('scaffold', SCAFFOLDS, (s) => s.scaffold_id);
export const envelopeRegistry = registry('envelope', ENVELOPES, (e) => e.envelope_id);
export const recognizerRegistry = registry(
  'recognizer pack',
  STANDARD_RECOGNIZER_PACKS,
  (r) => r.recognizer_id,
);
export const certificationPackRegistry = registry(
  'certification pack',
  CERTIFICATION_PACKS,
  (p) => p.pack_id,
);

/** A recognizer pack as the registry shows it: each motif with its class and period. */
export function recognizerPackView(pack: RecognizerPack) {
  return {
    ...pack,
    motifs: pack.motifs.map((name) => MOTIFS.find((info) => info.motif === name)!),
  };
}
