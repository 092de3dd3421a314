import * as inspectionService from '../../../domain/substrates/inspection.service';
import * as substratesSchemas from '../../../domain/substrates/schemas';
import * as substratesViews from '../../../domain/substrates/view-schemas';
import { defineRoute, type RouteDefinition } from '../../route';
import { envelope } from '../common';

const TAGS = ['substrates'];

/** Looking at a deployment: observe, assay, recognize motifs, render. */
export const substrateInspectionRoutes: RouteDefinition[] = [
  defineRoute({
    operationId: 'substrates.observe',
    method: 'POST',
    path: '/v1/substrates/observe',
    family: 'substrate_observation',
    summary: 'observe deployed environment state',
    description:
      'Returns the state of a deployment at a tick (default: the newest computed): population, bounding box, digest and a window of cells. A tick not computed yet is 409.',
    tags: TAGS,
    request: {
      body: { name: 'SubstrateObserveRequest', schema: substratesSchemas.substrateObserveBody },
    },
    responses: {
      404: { description: 'No such deployment.' },
      409: {
        description:
          'The deployment has not computed that tick, or has no state to read (failed or cancelled).',
      },
      200: { description: 'The observation.', schema: envelope(substratesViews.observationView) },
    },
    handler: async (req, deps) => ({ payload: await inspectionService.observe(deps, req.body) }),
  }),

  defineRoute({
    operationId: 'substrates.assay',
    method: 'POST',
    path: '/v1/substrates/assay',
    family: 'substrate_assay',
    summary: 'run assay pack against deployed environment',
    description:
      'Runs a certification pack (determinism by replay digest, envelope conformance, liveness, period detection...) against a deployment and returns each assay verdict with its evidence.',
    tags: TAGS,
    request: {
      body: { name: 'SubstrateAssayRequest', schema: substratesSchemas.substrateAssayBody },
    },
    responses: {
      404: { description: 'No such deployment.' },
      409: {
        description:
          'The deployment has not computed that tick, or has no state to read (failed or cancelled).',
      },
      200: { description: 'The assay report.', schema: envelope(substratesViews.assayReportView) },
    },
    handler: async (req, deps) => ({ payload: await inspectionService.assay(deps, req.body) }),
  }),

  defineRoute({
    operationId: 'substrates.recognize',
    method: 'POST',
    path: '/v1/substrates/recognize',
    family: 'substrate_recognition',
    summary: 'motif recognition outputs',
    description:
      'Scans a deployment at a tick with a recognizer pack and lists the motifs found: still lifes, oscillators and spaceships, with position, phase and heading.',
    tags: TAGS,
    request: {
      body: { name: 'SubstrateRecognizeRequest', schema: substratesSchemas.substrateRecognizeBody },
    },
    responses: {
      404: { description: 'No such deployment.' },
      409: {
        description:
          'The deployment has not computed that tick, or has no state to read (failed or cancelled).',
      },
      200: { description: 'The motifs found.', schema: envelope(substratesViews.recognitionView) },
    },
    handler: async (req, deps) => ({
      payload: await inspectionService.recognizeMotifs(deps, req.body),
    }),
  }),

  defineRoute({
    operationId: 'substrates.render',
    method: 'POST',
    path: '/v1/substrates/render',
    family: 'substrate_observation',
    summary: 'render manifests and summaries',
    description:
      'Renders a deployment at a tick as JSON (manifest and summary), Markdown (a readable report) or SVG (a picture of the lattice).',
    tags: TAGS,
    request: {
      body: { name: 'SubstrateRenderRequest', schema: substratesSchemas.substrateRenderBody },
    },
    responses: {
      404: { description: 'No such deployment.' },
      409: {
        description:
          'The deployment has not computed that tick, or has no state to read (failed or cancelled).',
      },
      200: { description: 'The rendering.', schema: envelope(substratesViews.renderingView) },
    },
    handler: async (req, deps) => ({
      payload: await inspectionService.renderDeployment(deps, req.body),
    }),
  }),
];
