import { createHash } from 'node:crypto';
import type { DomainInfra } from '../infra';
import { found, Invalid } from '../../lib/errors';
import { contextCommitments, contextEvidence } from '../shared-contexts/shared-contexts.service';
import { aboutness } from '../intentionality/aboutness';
import { listRepairs, toRepairView } from '../repairs/repairs.service';
import { toDeploymentView, getDeployment } from '../substrates/deployments.service';
import { selfReport } from '../witnesses/self';
import { redact } from './redact';
import { toHtml, toMarkdown } from './render';
import { runtimeSvg, worldSvg, type WorldPicture } from './svg';
import { loadAssay } from '../assays/assays.service';

type Deps = Pick<DomainInfra, 'config' | 'repos' | 'temporal' | 'witnesses'>;

export const MEMBRANE_KINDS = [
  'aboutness',
  'assay',
  'commitment',
  'evidence',
  'repair',
  'runtime',
  'world',
] as const;
export type MembraneKind = (typeof MEMBRANE_KINDS)[number];
export const MEMBRANE_FORMATS = ['json', 'markdown', 'html', 'svg'] as const;
type Format = (typeof MEMBRANE_FORMATS)[number];

/** Most objects and relationships the world picture draws. */
const WORLD_OBJECTS = 200;
const WORLD_RELATIONSHIPS = 500;

const CONTENT_TYPES: Record<Format, string> = {
  json: 'application/json',
  markdown: 'text/markdown; charset=utf-8',
  html: 'text/html; charset=utf-8',
  svg: 'image/svg+xml',
};

const invalid = (field: string, msg: string) =>
  new Invalid([{ loc: ['body', ...field.split('.')], msg, type: 'value_error' }]);

/** A string field of the subject, or 422 naming it. */
function field(subject: Record<string, unknown>, name: string): string | undefined {
  const value = subject[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw invalid(`subject.${name}`, `${name} must be a string`);
  return value;
}

async function worldOf(deps: Deps): Promise<WorldPicture> {
  const [objects, relationships] = await Promise.all([
    deps.repos.worldObjects.list({}, WORLD_OBJECTS),
    deps.repos.worldRelationships.first(WORLD_RELATIONSHIPS),
  ]);
  return {
    objects: objects.slice(0, WORLD_OBJECTS).map((o) => ({
      object_id: o._id,
      name: o.name,
      kind: o.kind,
    })),
    relationships: relationships.map((r) => ({ from: r.from, to: r.to, kind: r.kind })),
  };
}

/** The witness a subject names, computed now. */
async function computed(deps: Deps, kind: MembraneKind, subject: Record<string, unknown>) {
  const need = (name: string): string => {
    const value = field(subject, name);
    if (!value) throw invalid(`subject.${name}`, `the ${kind} renderer needs subject.${name}`);
    return value;
  };
  switch (kind) {
    case 'aboutness':
      return aboutness(deps, need('handle'));
    case 'commitment':
      return contextCommitments(deps, need('context_id'));
    case 'evidence':
      return contextEvidence(deps, need('context_id'));
    case 'runtime':
      return selfReport(deps, {});
    case 'world':
      return worldOf(deps);
    case 'repair': {
      const repairId = field(subject, 'repair_id');
      if (repairId) {
        const record = await found(deps.repos.repairs.findById(repairId), `repair ${repairId}`);
        return toRepairView(record, deps);
      }
      return listRepairs(deps, { object_id: need('object_id'), limit: 20 });
    }
    case 'assay': {
      const assayId = field(subject, 'assay_id');
      if (assayId) return loadAssay(deps, assayId);
      return toDeploymentView(await getDeployment(deps, need('deployment_id')));
    }
  }
}

const drawable = (items: unknown, fields: string[]): boolean =>
  Array.isArray(items) &&
  items.every(
    (item) =>
      typeof item === 'object' &&
      item !== null &&
      fields.every((field) => typeof (item as Record<string, unknown>)[field] === 'string'),
  );

/** Whether a payload is a picture `worldSvg` can draw (the document states the same). */
const isPicture = (object: Record<string, unknown>): boolean =>
  drawable(object['objects'], ['object_id', 'name', 'kind']) &&
  drawable(object['relationships'], ['from', 'to', 'kind']);

function svgOf(kind: MembraneKind, value: unknown): string {
  const object = (value ?? {}) as Record<string, unknown>;
  if (kind === 'world') {
    if (!isPicture(object)) {
      throw invalid(
        'payload',
        'a world picture needs `objects` and `relationships` arrays, of objects with string `object_id`, `name`, `kind` and relationships with string `from`, `to`, `kind`',
      );
    }
    return worldSvg(object as unknown as WorldPicture);
  }
  const affect = (object['affect'] ?? {}) as Record<string, number>;
  const development = (object['development'] ?? {}) as Record<string, string>;
  const identity = (object['identity'] ?? {}) as Record<string, string>;
  const commitments = (object['commitments'] ?? {}) as Record<string, number>;
  return runtimeSvg({
    runtime_id: String(identity['runtime_id'] ?? 'unknown'),
    stage: String(development['stage'] ?? 'unknown'),
    valence: Number(affect['valence'] ?? 0),
    arousal: Number(affect['arousal'] ?? 0),
    commitments: Number(commitments['actions'] ?? 0) + Number(commitments['tasks'] ?? 0),
    open_tasks: Number(object['open_tasks'] ?? 0),
  });
}

/**
 * `POST /v1/membrane/render/<kind>`: the witness a `subject` names (computed now) or the
 * `payload` given, redacted, as a document: `{format, content_type, body, sha256,
 * redactions}`. The same input gives the same bytes.
 */
export async function renderMembrane(
  deps: Deps,
  kind: MembraneKind,
  body: { format: Format; subject?: Record<string, unknown>; payload?: unknown },
) {
  if (body.subject !== undefined && body.payload !== undefined) {
    throw invalid(
      'subject',
      'give either `subject` (what to compute) or `payload` (what to render), not both',
    );
  }
  // Neither: the witness as it is now, as `subject: {}` computes it (the current world).
  const subject = body.payload === undefined ? (body.subject ?? {}) : undefined;
  if (body.format === 'svg' && kind !== 'world' && kind !== 'runtime') {
    throw invalid('format', 'svg is for the world and runtime renderers only');
  }
  const source = subject ? await computed(deps, kind, subject) : body.payload;
  const { value, redactions } = redact(source);
  const title = `${kind} witness`;
  const text =
    body.format === 'json'
      ? `${JSON.stringify(value, null, 2)}\n`
      : body.format === 'markdown'
        ? toMarkdown(title, value)
        : body.format === 'html'
          ? toHtml(title, value)
          : svgOf(kind, value);
  return {
    format: body.format,
    content_type: CONTENT_TYPES[body.format],
    body: text,
    sha256: createHash('sha256').update(text, 'utf8').digest('hex'),
    redactions,
  };
}
