import type { TSchema } from '@sinclair/typebox';
import type { FamilyName } from '../../../auth/families';
import * as registry from '../../../domain/substrates/registry/registry';
import { registryListQuery } from '../../../domain/substrates/schemas';
import * as substratesViews from '../../../domain/substrates/view-schemas';
import { handleId, pathParams } from '../../../lib/schema';
import { defineRoute, type RouteDefinition } from '../../route';
import { envelope, page } from '../common';

/** What a registry offers the routes: a page of entries and one entry by id. */
interface Registry<T> {
  list(query: { limit?: number; cursor?: string }): { items: T[]; next_cursor: string | null };
  get(id: string): T;
}

interface RegistryRoutesSpec<T> {
  /** operationId stem, e.g. `substrates.scaffolds`. */
  operation: string;
  /** Path of the list, e.g. `/v1/substrates/scaffolds`. */
  path: string;
  idParam: string;
  idDescription: string;
  family: FamilyName;
  view: TSchema;
  registry: Registry<T>;
  /** How an entry is shown (default: as stored). */
  present?: (entry: T) => unknown;
  list: { summary: string; description: string; what: string };
  get: { summary: string; description: string; what: string };
}

/** The list and get routes of one read-only registry. */
function registryRoutes<T>(spec: RegistryRoutesSpec<T>): RouteDefinition[] {
  const present = spec.present ?? ((entry: T) => entry);
  return [
    defineRoute({
      operationId: `${spec.operation}.list`,
      method: 'GET',
      path: spec.path,
      family: spec.family,
      summary: spec.list.summary,
      description: spec.list.description,
      request: { query: registryListQuery },
      responses: {
        200: {
          description: `A page of ${spec.list.what}.`,
          schema: page(spec.view, registryListQuery),
        },
      },
      handler: async (req) => {
        const entries = spec.registry.list(req.query);
        return { payload: { ...entries, items: entries.items.map(present) } };
      },
    }),
    defineRoute({
      operationId: `${spec.operation}.get`,
      method: 'GET',
      path: `${spec.path}/{${spec.idParam}}`,
      family: spec.family,
      summary: spec.get.summary,
      description: spec.get.description,
      request: { params: pathParams({ [spec.idParam]: handleId(spec.idDescription) }) },
      responses: { 200: { description: `The ${spec.get.what}.`, schema: envelope(spec.view) } },
      handler: async (req) => ({
        payload: present(spec.registry.get(String(req.params[spec.idParam]))),
      }),
    }),
  ];
}

/** The substrate registries: scaffolds, envelopes, recognizer packs, certification packs. */
export const substrateRegistryRoutes: RouteDefinition[] = [
  ...registryRoutes({
    operation: 'substrates.scaffolds',
    path: '/v1/substrates/scaffolds',
    idParam: 'scaffold_id',
    idDescription: 'Scaffold id, e.g. `life-lattice`.',
    family: 'substrate_seeding',
    view: substratesViews.scaffoldView,
    registry: registry.scaffoldRegistry,
    list: {
      summary: 'list scaffold packages',
      description: 'Lists the scaffold packages (environment templates) and their parameters.',
      what: 'scaffolds',
    },
    get: {
      summary: 'inspect scaffold package',
      description: 'Returns one scaffold package with the JSON Schema of its parameters.',
      what: 'scaffold',
    },
  }),
  ...registryRoutes({
    operation: 'substrates.envelopes',
    path: '/v1/substrates/envelopes',
    idParam: 'envelope_id',
    idDescription: 'Envelope id.',
    family: 'substrate_seeding',
    view: substratesViews.envelopeView,
    registry: registry.envelopeRegistry,
    list: {
      summary: 'list constitutional envelopes',
      description:
        'Lists the constitutional envelopes: bounds on size, ticks, wall time and rules.',
      what: 'envelopes',
    },
    get: {
      summary: 'inspect envelope',
      description: 'Returns one constitutional envelope with its bounds.',
      what: 'envelope',
    },
  }),
  ...registryRoutes({
    operation: 'substrates.recognizers',
    path: '/v1/substrates/recognizers',
    idParam: 'recognizer_id',
    idDescription: 'Recognizer pack id.',
    family: 'substrate_recognition',
    view: substratesViews.recognizerView,
    registry: registry.recognizerRegistry,
    present: registry.recognizerPackView,
    list: {
      summary: 'list motif recognizer packs',
      description: 'Lists the motif recognizer packs and the motifs each finds.',
      what: 'recognizer packs',
    },
    get: {
      summary: 'inspect recognizer pack',
      description: 'Returns one recognizer pack with its motifs, classes and periods.',
      what: 'recognizer pack',
    },
  }),
  ...registryRoutes({
    operation: 'substrates.certificationPacks',
    path: '/v1/substrates/certification-packs',
    idParam: 'pack_id',
    idDescription: 'Certification pack id.',
    family: 'substrate_assay',
    view: substratesViews.certificationPackView,
    registry: registry.certificationPackRegistry,
    list: {
      summary: 'list certification starter packs',
      description: 'Lists the certification packs and the assays each runs.',
      what: 'certification packs',
    },
    get: {
      summary: 'inspect certification pack',
      description: 'Returns one certification pack with its assays.',
      what: 'certification pack',
    },
  }),
];
