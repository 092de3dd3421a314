import type { DomainInfra } from '../infra';
import { InvalidState, Invalid } from '../../lib/errors';
import type {
  CellWindow,
  SubstrateAssayRequest,
  SubstrateObserveRequest,
  SubstrateRecognizeRequest,
  SubstrateRenderRequest,
} from './schemas';
import type { Repos } from '../../store';
import { sha256Hex } from '../../store/artifacts.repo';
import type { DeploymentRecord } from '../../store/substrate-deployments.repo';
import { assayReportPath, runAssays } from './certification-assays';
import { getDeployment } from './deployments.service';
import type { Box, Substrate } from './engine';
import { countByMotif, recognize } from './recognition';
import { certificationPackRegistry, recognizerRegistry } from './registry/registry';
import { render } from './render';
import type { SubstrateStates } from './states';

type InspectDeps = Pick<DomainInfra, 'repos' | 'substrateStates'>;

/** The default observation window: the bounding box (or the origin), at most 64 x 64. */
const DEFAULT_WINDOW_SIDE = 64;
const DEFAULT_RECOGNIZER = 'life-standard';

async function stateOf(deps: InspectDeps, deploymentId: string, tick: number | undefined) {
  const deployment = await getDeployment(deps, deploymentId);
  const state = await deps.substrateStates.at(deployment, tick ?? deployment.progress.tick);
  return { deployment, state };
}

function windowOf(state: Substrate, requested: CellWindow | undefined): Box {
  if (requested) {
    const outside = requested.x >= state.width || requested.y >= state.height;
    if (outside) {
      throw new Invalid([
        {
          loc: ['body', 'window'],
          msg: `the window starts outside the ${state.width} x ${state.height} substrate`,
          type: 'value_error',
        },
      ]);
    }
    return {
      x: requested.x,
      y: requested.y,
      width: Math.min(requested.width, state.width),
      height: Math.min(requested.height, state.height),
    };
  }
  const box = state.boundingBox() ?? { x: 0, y: 0, width: 0, height: 0 };
  return {
    x: box.x,
    y: box.y,
    width: Math.max(1, Math.min(box.width, DEFAULT_WINDOW_SIDE, state.width)),
    height: Math.max(1, Math.min(box.height, DEFAULT_WINDOW_SIDE, state.height)),
  };
}

/** `POST /v1/substrates/observe`. */
export async function observe(deps: InspectDeps, body: SubstrateObserveRequest) {
  const { deployment, state } = await stateOf(deps, body.deployment_id, body.tick);
  const window = windowOf(state, body.window);
  return {
    deployment_id: deployment._id,
    tick: state.tick,
    population: state.population(),
    bounding_box: state.boundingBox(),
    digest: state.digest(),
    window: { x: window.x, y: window.y, rows: state.window(window) },
  };
}

/** `POST /v1/substrates/recognize`: motifs of the pack's rule only. */
export async function recognizeMotifs(deps: InspectDeps, body: SubstrateRecognizeRequest) {
  const pack = recognizerRegistry.get(body.recognizer_id ?? DEFAULT_RECOGNIZER);
  const deployment = await getDeployment(deps, body.deployment_id);
  const rule = String(deployment.spec.params.rule);
  if (deployment.spec.scaffold !== 'life-lattice' || rule !== pack.rule) {
    throw new Invalid([
      {
        loc: ['body', 'recognizer_id'],
        msg: `recognizer pack ${pack.recognizer_id} finds motifs of ${pack.rule}; deployment ${deployment._id} runs ${deployment.spec.scaffold} ${rule}`,
        type: 'value_error',
      },
    ]);
  }
  const state = await deps.substrateStates.at(deployment, body.tick ?? deployment.progress.tick);
  const motifs = recognize(state, pack.motifs);
  return {
    deployment_id: deployment._id,
    tick: state.tick,
    recognizer_id: pack.recognizer_id,
    motifs,
    counts: countByMotif(motifs),
  };
}

const RENDER_EXTENSIONS = { json: 'json', markdown: 'md', svg: 'svg' } as const;

/** `POST /v1/substrates/render`: the rendering, also stored as an artifact. */
export async function renderDeployment(deps: InspectDeps, body: SubstrateRenderRequest) {
  const { deployment, state } = await stateOf(deps, body.deployment_id, body.tick);
  const conway =
    deployment.spec.scaffold === 'life-lattice' && deployment.spec.params.rule === 'B3/S23';
  const rendered = render(
    {
      deployment_id: deployment._id,
      tick: state.tick,
      grid: state,
      population: state.population(),
      bounding_box: state.boundingBox(),
      digest: state.digest(),
      spec: { ...deployment.spec },
      manifest_sha256: deployment.manifest_sha256,
      stage: deployment.stage,
      ...(conway ? { motifs: countByMotif(recognize(state)) } : {}),
    },
    body.format,
  );
  const text =
    typeof rendered.content === 'string' ? rendered.content : JSON.stringify(rendered.content);
  const bytes = Buffer.from(text, 'utf8');
  const path = `substrates/${deployment._id}/renders/tick-${state.tick}-${sha256Hex(bytes).slice(0, 12)}.${RENDER_EXTENSIONS[body.format]}`;
  const { artifact } = await deps.repos.artifacts.put({
    path,
    kind: 'render',
    content_type: rendered.content_type,
    content: bytes,
    deployment_id: deployment._id,
    now: new Date().toISOString(),
  });
  return {
    deployment_id: deployment._id,
    tick: state.tick,
    format: body.format,
    content_type: rendered.content_type,
    content: rendered.content,
    artifact_id: artifact._id,
    artifact_path: artifact.path,
  };
}

/** Runs a pack against a deployment and stores the report; shared by the route and workflow. */
export async function assayAndStore(
  deps: {
    repos: Pick<Repos, 'artifacts' | 'substrateSnapshots'>;
    substrateStates: SubstrateStates;
  },
  deployment: DeploymentRecord,
  packId: string,
) {
  const pack = certificationPackRegistry.get(packId);
  const report = await runAssays(
    { deployment, snapshots: deps.repos.substrateSnapshots, states: deps.substrateStates },
    pack,
  );
  const bytes = Buffer.from(`${JSON.stringify(report, null, 2)}\n`, 'utf8');
  const { artifact } = await deps.repos.artifacts.put({
    path: assayReportPath(deployment._id, pack.pack_id, report.tick, sha256Hex(bytes)),
    kind: 'assay_report',
    content_type: 'application/json',
    content: bytes,
    deployment_id: deployment._id,
    now: new Date().toISOString(),
  });
  return { ...report, report_artifact_id: artifact._id, report_path: artifact.path };
}

/** `POST /v1/substrates/assay`: needs at least one computed tick. */
export async function assay(deps: InspectDeps, body: SubstrateAssayRequest) {
  certificationPackRegistry.get(body.pack_id);
  const deployment = await getDeployment(deps, body.deployment_id);
  if (deployment.progress.tick === 0 && deployment.stage !== 'ready') {
    throw new InvalidState(`deployment ${deployment._id} has computed no tick yet`, {
      extra: { state: deployment.stage },
    });
  }
  return assayAndStore(deps, deployment, body.pack_id);
}
