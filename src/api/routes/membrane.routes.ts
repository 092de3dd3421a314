import { defineRoute, type JsonSchema, type RouteDefinition } from '../route';
import { closedObject, envelope, handleId, notImplemented } from './common';
import {
  arrayOf,
  choice,
  contextRef,
  dateTime,
  idRef,
  patterned,
  text,
  view,
  type NoParams,
  type NoQuery,
} from './schemas';

const TAGS = ['membrane'];

/** Output formats of the membrane renderers. */
export const MEMBRANE_FORMATS = ['markdown', 'text', 'json'] as const;
export type MembraneFormat = (typeof MEMBRANE_FORMATS)[number];

/** Body of `POST /v1/membrane/render/world`. */
export interface MembraneRenderWorldRequest {
  object_ids?: string[];
  kind?: string;
  format?: MembraneFormat;
}
/** Body of `POST /v1/membrane/render/runtime`. */
export interface MembraneRenderRuntimeRequest {
  session_id?: string;
  format?: MembraneFormat;
}
/** Body of `POST /v1/membrane/render/assay`. */
export interface MembraneRenderAssayRequest {
  deployment_id?: string;
  pack_id?: string;
  format?: MembraneFormat;
}
/** Body of `POST /v1/membrane/render/aboutness`. */
export interface MembraneRenderAboutnessRequest {
  handle?: string;
  shared_context_id?: string;
  format?: MembraneFormat;
}
/** Body of `POST /v1/membrane/render/commitment`. */
export interface MembraneRenderCommitmentRequest {
  shared_context_id?: string;
  format?: MembraneFormat;
}
/** Body of `POST /v1/membrane/render/evidence`. */
export interface MembraneRenderEvidenceRequest {
  shared_context_id?: string;
  object_id?: string;
  format?: MembraneFormat;
}
/** Body of `POST /v1/membrane/render/repair`. */
export interface MembraneRenderRepairRequest {
  object_id?: string;
  format?: MembraneFormat;
}

const formatField = choice(MEMBRANE_FORMATS, 'Output format.', 'markdown');

/** A membrane body: a closed object of optional fields plus `format`; an empty body is fine. */
const renderBody = (name: string, properties: Record<string, JsonSchema>) => ({
  name,
  required: false,
  schema: closedObject({ ...properties, format: formatField }),
});

const renderResponse = (what: string) => ({
  200: {
    description: `The rendered ${what}.`,
    schema: envelope(
      view(
        {
          renderer: text('Renderer used.', 64),
          format: choice(MEMBRANE_FORMATS, 'Format.'),
          content_type: text('Content type of `content`.', 128),
          content: {
            anyOf: [{ type: 'string' }, { type: 'object' }],
            description: 'Markdown or text, or the JSON document.',
          },
          sources: arrayOf(text('Record or witness rendered.', 256), 'What was rendered.', {
            maxItems: 500,
          }),
          digest: text('sha256 of the source payload.', 64),
          rendered_at: dateTime('When it was rendered.'),
        },
        ['renderer', 'format', 'content_type', 'content', 'digest', 'rendered_at'],
      ),
    ),
  },
});

/** Membrane renderers: human-facing renderings of runtime, world and witness payloads. */
export const membraneRoutes: RouteDefinition[] = [
  defineRoute({
    operationId: 'membrane.render.aboutness',
    method: 'POST',
    path: '/v1/membrane/render/aboutness',
    family: 'membrane_witness',
    summary: 'aboutness witness payload',
    description:
      'Renders the aboutness witness of a handle or of a shared context as Markdown, text or JSON. Give `handle` or `shared_context_id`.',
    tags: TAGS,
    request: {
      body: renderBody('MembraneRenderAboutnessRequest', {
        handle: patterned(
          'Handle whose aboutness to render (any server or shared-context id).',
          '^[A-Za-z0-9_.:-]{1,128}$',
          128,
        ),
        shared_context_id: contextRef('Shared context whose aboutness to render.'),
      }),
    },
    responses: renderResponse('aboutness witness'),
    handler: notImplemented('The aboutness membrane renderer'),
  }),

  defineRoute({
    operationId: 'membrane.render.assay',
    method: 'POST',
    path: '/v1/membrane/render/assay',
    family: 'membrane_basic',
    summary: 'assay payload',
    description:
      'Renders the newest assay report of a substrate deployment (optionally of one certification pack) as Markdown, text or JSON.',
    tags: TAGS,
    request: {
      body: renderBody('MembraneRenderAssayRequest', {
        deployment_id: idRef('dep', 'Deployment whose assay to render (default: the newest).'),
        pack_id: handleId('Certification pack (default: the newest report of any pack).'),
      }),
    },
    responses: renderResponse('assay'),
    handler: notImplemented('The assay membrane renderer'),
  }),

  defineRoute({
    operationId: 'membrane.render.commitment',
    method: 'POST',
    path: '/v1/membrane/render/commitment',
    family: 'membrane_witness',
    summary: 'commitment witness payload',
    description:
      'Renders the commitments witness (open tasks and pending actions) of a shared context, or of the whole runtime, as Markdown, text or JSON.',
    tags: TAGS,
    request: {
      body: renderBody('MembraneRenderCommitmentRequest', {
        shared_context_id: contextRef('Shared context (default: the whole runtime).'),
      }),
    },
    responses: renderResponse('commitment witness'),
    handler: notImplemented('The commitment membrane renderer'),
  }),

  defineRoute({
    operationId: 'membrane.render.evidence',
    method: 'POST',
    path: '/v1/membrane/render/evidence',
    family: 'membrane_witness',
    summary: 'evidence witness payload',
    description:
      'Renders the evidence witness of a shared context or a world object (events, plans, executions with their digests) as Markdown, text or JSON.',
    tags: TAGS,
    request: {
      body: renderBody('MembraneRenderEvidenceRequest', {
        shared_context_id: contextRef('Shared context whose evidence to render.'),
        object_id: idRef('obj', 'World object whose evidence to render.'),
      }),
    },
    responses: renderResponse('evidence witness'),
    handler: notImplemented('The evidence membrane renderer'),
  }),

  defineRoute({
    operationId: 'membrane.render.repair',
    method: 'POST',
    path: '/v1/membrane/render/repair',
    family: 'membrane_witness',
    summary: 'repair witness payload',
    description:
      'Renders the latest repair witness and certificate (of one world object, or of all) as Markdown, text or JSON.',
    tags: TAGS,
    request: {
      body: renderBody('MembraneRenderRepairRequest', {
        object_id: idRef('obj', 'World object (default: all objects).'),
      }),
    },
    responses: renderResponse('repair witness'),
    handler: notImplemented('The repair membrane renderer'),
  }),

  defineRoute({
    operationId: 'membrane.render.runtime',
    method: 'POST',
    path: '/v1/membrane/render/runtime',
    family: 'membrane_basic',
    summary: 'runtime state',
    description:
      'Renders the runtime state (summary, continuity, affect in brief), optionally focused on one session, as Markdown, text or JSON.',
    tags: TAGS,
    request: {
      body: renderBody('MembraneRenderRuntimeRequest', {
        session_id: idRef('ses', 'Session to focus on.'),
      }),
    },
    responses: renderResponse('runtime state'),
    handler: notImplemented('The runtime membrane renderer'),
  }),

  defineRoute({
    operationId: 'membrane.render.world',
    method: 'POST',
    path: '/v1/membrane/render/world',
    family: 'membrane_world_render',
    summary: 'world state',
    description:
      'Renders the world state (objects, relationships and history head), or a selection of it, as Markdown, text or JSON.',
    tags: TAGS,
    request: {
      body: renderBody('MembraneRenderWorldRequest', {
        object_ids: arrayOf(idRef('obj', 'World object id.'), 'Only these objects.', {
          minItems: 1,
          maxItems: 100,
          uniqueItems: true,
        }),
        kind: patterned('Only objects of this kind.', '^[a-z][a-z0-9_.-]{0,63}$', 64),
      }),
    },
    responses: renderResponse('world state'),
    handler: notImplemented('The world membrane renderer'),
  }),
];
