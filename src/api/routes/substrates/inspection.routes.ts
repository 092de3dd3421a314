import * as inspectionService from '../../../domain/substrates/inspection.service';
import * as substratesSchemas from '../../../domain/substrates/schemas';
import * as substratesViews from '../../../domain/substrates/view-schemas';
import { defineRoute, type RouteDefinition } from '../../route';
import { envelope, fromBody } from '../common';

/** What every inspection answers when the deployment or its state at the tick is missing. */
const deploymentStateErrors = {
  404: { description: 'No such deployment.' },
  409: {
    description:
      'The deployment has not computed that tick, or has no state to read (failed or cancelled).',
  },
};

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
    request: {
      body: { name: 'SubstrateObserveRequest', schema: substratesSchemas.substrateObserveBody },
    },
    responses: {
      ...deploymentStateErrors,
      200: { description: 'The observation.', schema: envelope(substratesViews.observationView) },
    },
    handler: fromBody(inspectionService.observe),
  }),

  defineRoute({
    operationId: 'substrates.assay',
    method: 'POST',
    path: '/v1/substrates/assay',
    family: 'substrate_assay',
    summary: 'run assay pack against deployed environment',
    description:
      'Runs a certification pack (determinism by replay digest, envelope conformance, liveness, period detection...) against a deployment and returns each assay verdict with its evidence.',
    request: {
      body: { name: 'SubstrateAssayRequest', schema: substratesSchemas.substrateAssayBody },
    },
    responses: {
      ...deploymentStateErrors,
      200: { description: 'The assay report.', schema: envelope(substratesViews.assayReportView) },
    },
    handler: fromBody(inspectionService.assay),
  }),

  defineRoute({
    operationId: 'substrates.recognize',
    method: 'POST',
    path: '/v1/substrates/recognize',
    family: 'substrate_recognition',
    summary: 'motif recognition outputs',
    description:
      'Scans a deployment at a tick with a recognizer pack and lists the motifs found: still lifes, oscillators and spaceships, with position, phase and heading.',
    request: {
      body: { name: 'SubstrateRecognizeRequest', schema: substratesSchemas.substrateRecognizeBody },
    },
    responses: {
      ...deploymentStateErrors,
      200: { description: 'The motifs found.', schema: envelope(substratesViews.recognitionView) },
    },
    handler: fromBody(inspectionService.recognizeMotifs),
  }),

  defineRoute({
    operationId: 'substrates.render',
    method: 'POST',
    path: '/v1/substrates/render',
    family: 'substrate_observation',
    summary: 'render manifests and summaries',
    description:
      'Renders a deployment at a tick as JSON (manifest and summary), Markdown (a readable report) or SVG (a picture of the lattice).',
    request: {
      body: { name: 'SubstrateRenderRequest', schema: substratesSchemas.substrateRenderBody },
    },
    responses: {
      ...deploymentStateErrors,
      200: { description: 'The rendering.', schema: envelope(substratesViews.renderingView) },
    },
    handler: fromBody(inspectionService.renderDeployment),
  }),
];
