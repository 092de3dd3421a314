import { getArtifact } from '../../../domain/artifacts/artifacts.service';
import { compileSpec } from '../../../domain/substrates/compile.service';
import * as deploymentsService from '../../../domain/substrates/deployments.service';
import * as substratesSchemas from '../../../domain/substrates/schemas';
import { validateSpec } from '../../../domain/substrates/validation';
import * as substratesViews from '../../../domain/substrates/view-schemas';
import { pathParams, prefixedId } from '../../../lib/schema';
import { defineRoute, type RouteDefinition } from '../../route';
import { envelope, fromBody, fromQuery, handOn, page } from '../common';

const specBody = { name: 'SubstrateSpecRequest', schema: substratesSchemas.substrateSpecSchema };

/** Substrates from spec to deployment: validate, compile, deploy, deployments, artifacts. */
export const substratePipelineRoutes: RouteDefinition[] = [
  defineRoute({
    operationId: 'substrates.validate',
    method: 'POST',
    path: '/v1/substrates/validate',
    family: 'substrate_seeding',
    summary: 'validate seeded environment spec',
    description:
      'Checks a spec against its scaffold and envelope and names every violation. An invalid spec is a normal answer (`valid: false`), not an error.',
    request: { body: specBody },
    responses: {
      200: { description: 'The verdict.', schema: envelope(substratesViews.specVerdictView) },
    },
    handler: async (req) => ({ payload: validateSpec(req.body) }),
  }),

  defineRoute({
    operationId: 'substrates.compile',
    method: 'POST',
    path: '/v1/substrates/compile',
    family: 'substrate_build',
    summary: 'compile spec',
    description:
      'Validates and compiles a spec into a canonical manifest whose sha256 is its identity: the same spec gives the same artifact, byte for byte. An invalid spec is 422 naming the violations.',
    request: {
      body: { name: 'SubstrateCompileRequest', schema: substratesSchemas.compilableSpecSchema },
    },
    responses: {
      200: {
        description: 'The manifest artifact.',
        schema: envelope(substratesViews.compiledManifestView),
        links: handOn('artifact_id', '/payload/artifact/artifact_id', {
          path: { Artifact: 'substrates.artifacts.get' },
          body: { Deploy: 'substrates.deploy' },
        }),
      },
    },
    handler: fromBody(compileSpec),
  }),

  defineRoute({
    operationId: 'substrates.deploy',
    method: 'POST',
    path: '/v1/substrates/deploy',
    family: 'substrate_build',
    summary: 'deploy or bind environment',
    description:
      'Starts a deployment workflow (validate, compile, deploy, observe, assay) from a spec or a compiled manifest and returns the deployment at once; follow `stage` and `progress`. `mode: bind` reuses a live deployment of the same manifest when there is one. A new deployment counts against the running deployments and the daily cell updates of its key and organization (429 beyond either).',
    request: {
      body: { name: 'SubstrateDeployRequest', schema: substratesSchemas.substrateDeployBody },
    },
    responses: {
      404: { description: 'No such compiled manifest (`artifact_id`).' },
      429: {
        description:
          'A limit on heavy work of the key or its organization (docs/governance.md): `deployment_concurrency_exceeded` (running deployments; `error.scope`, `error.allowed`, `error.running`) or `cell_updates_quota_exceeded` (cells × ticks per UTC day; `error.used`, `error.requested`, `Retry-After` until 00:00 UTC when the deployment fits a whole day).',
      },
      201: {
        description: 'The deployment, started.',
        schema: envelope(substratesViews.deploymentView),
        links: handOn('deployment_id', '/payload/deployment_id', {
          path: { Get: 'substrates.deployments.get' },
          body: { Observe: 'substrates.observe', Render: 'substrates.render' },
        }),
      },
      200: {
        description: '`bind`: the existing deployment.',
        schema: envelope(substratesViews.deploymentView),
      },
    },
    idempotent: true,
    handler: async (req, deps) => {
      const { created, deployment } = await deploymentsService.deploy(deps, req.auth, req.body);
      return { status: created ? 201 : 200, payload: deployment };
    },
  }),

  defineRoute({
    operationId: 'substrates.deployments.list',
    method: 'GET',
    path: '/v1/substrates/deployments',
    family: 'substrate_build',
    summary: 'list deployment records',
    description: 'Lists deployments, newest first, optionally in one stage.',
    request: { query: substratesSchemas.deploymentListQuery },
    responses: {
      200: {
        description: 'A page of deployments.',
        schema: page(substratesViews.deploymentView, substratesSchemas.deploymentListQuery),
        links: handOn('deployment_id', '/payload/items/0/deployment_id', {
          path: { Get: 'substrates.deployments.get' },
        }),
      },
    },
    handler: fromQuery(deploymentsService.listDeployments),
  }),

  defineRoute({
    operationId: 'substrates.deployments.get',
    method: 'GET',
    path: '/v1/substrates/deployments/{deployment_id}',
    family: 'substrate_build',
    summary: 'inspect deployment record',
    description: 'Returns one deployment: spec, manifest, stage and progress.',
    request: { params: pathParams({ deployment_id: prefixedId('dep', 'Deployment id.') }) },
    responses: {
      200: { description: 'The deployment.', schema: envelope(substratesViews.deploymentView) },
    },
    handler: async (req, deps) => ({
      payload: deploymentsService.toDeploymentView(
        await deploymentsService.getDeployment(deps, req.params.deployment_id),
        deps,
      ),
    }),
  }),

  defineRoute({
    operationId: 'substrates.artifacts.get',
    method: 'GET',
    path: '/v1/substrates/artifacts/{artifact_id}',
    family: 'substrate_build',
    summary: 'inspect build or deployment artifact',
    description:
      'Returns the metadata of one artifact (kind, path, content type, size, sha256); the content is at `GET /v1/artifacts/{path}`.',
    request: { params: pathParams({ artifact_id: prefixedId('art', 'Artifact id.') }) },
    responses: {
      200: { description: 'The artifact.', schema: envelope(substratesViews.artifactView) },
    },
    handler: async (req, deps) => ({ payload: await getArtifact(deps, req.params.artifact_id) }),
  }),
];
