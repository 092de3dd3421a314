import { createHash } from 'node:crypto';
import { WorkflowNotFoundError } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import stringify from 'safe-stable-stringify';
import type { DomainInfra } from '../infra';
import { Unavailable } from '../../lib/errors';
import { aboutness } from '../intentionality/aboutness';
import {
  contextCommitments,
  contextDisagreement,
  contextEvidence,
} from '../shared-contexts/shared-contexts.service';
import { toMarkdown } from '../membrane/render';
import { gather, newestTime } from './collect';
import type { DossierBody, DossierDepth } from './schemas';

type Deps = Pick<DomainInfra, 'repos' | 'witnesses' | 'temporal'>;

const sha256 = (bytes: string | Buffer): string => createHash('sha256').update(bytes).digest('hex');

/** Canonical JSON: keys sorted at every level, two-space indented, one final newline. */
const canonical = (value: unknown): string => `${stringify(value, null, 2) ?? 'null'}\n`;

/** The witnesses a full dossier adds, computed as of the newest record time (never the clock). */
async function witnessesOf(deps: Deps, body: DossierBody, asOf: Date) {
  const { kind, id } = body.subject;
  if (kind === 'context') {
    const [commitments, disagreement, evidence, about] = await Promise.all([
      contextCommitments(deps, id, asOf),
      contextDisagreement(deps, id, asOf),
      contextEvidence(deps, id, asOf),
      aboutness(deps, `ctx:${id}`, asOf),
    ]);
    return { aboutness: about, commitments, disagreement, evidence };
  }
  if (kind === 'object' || kind === 'action' || kind === 'session' || kind === 'deployment') {
    return { aboutness: await aboutness(deps, id, asOf) };
  }
  return {};
}

/**
 * Each workflow's event history from Temporal in its proto3 JSON form (what the Temporal CLI
 * and replayers read), keys sorted: the server writes map fields such as search attributes
 * in no fixed order. And a summary.
 */
async function historiesOf(deps: Deps, workflowIds: string[]) {
  const histories: { workflow_id: string; json: string; summary: Record<string, unknown> }[] = [];
  for (const workflowId of [...new Set(workflowIds)].sort().slice(0, 20)) {
    const history = await fetchHistory(deps, workflowId);
    if (!history) continue;
    const parsed = JSON.parse(historyToJSON(history)) as {
      events: { eventType: string; eventTime: string }[];
    };
    const { events } = parsed;
    histories.push({
      workflow_id: workflowId,
      json: canonical(parsed),
      summary: {
        workflow_id: workflowId,
        events: events.length,
        first_event_at: events[0]?.eventTime ?? null,
        last_event_at: events[events.length - 1]?.eventTime ?? null,
        event_types: events.map((event) => event.eventType.replace(/^EVENT_TYPE_/, '')),
      },
    });
  }
  return histories;
}

/** One workflow's history; null when Temporal does not know it (removed by retention). */
async function fetchHistory(deps: Deps, workflowId: string) {
  try {
    const client = await deps.temporal.getClient();
    return await client.workflow.getHandle(workflowId).fetchHistory();
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return null;
    throw new Unavailable('Temporal is unavailable; retry', {
      extra: { cause: error instanceof Error ? error.message : String(error) },
    });
  }
}

/**
 * `POST /v1/dossiers/{core,full}`: what is stored about the subject (its record, ledger with
 * its proof results, related records) as `dossier.json` (canonical JSON) and `dossier.md`;
 * `full` adds the witnesses (as of the newest record time) and each related workflow's
 * Temporal history. Nothing in them comes from the clock, so the same records give the same
 * bytes, the same sha256 and the same id (docs/dossiers.md).
 */
export async function buildDossier(deps: Deps, depth: DossierDepth, request: DossierBody) {
  // Canonical before anything is hashed or stored: the client's key order must not change
  // a byte (found by fuzzing: the same subject with its keys swapped answered 500).
  const body: DossierBody = { subject: { kind: request.subject.kind, id: request.subject.id } };
  const gathered = await gather(deps, body.subject.kind, body.subject.id);
  const asOf = newestTime(gathered.records);
  const witnesses =
    depth === 'full' && asOf ? await witnessesOf(deps, body, new Date(asOf)) : undefined;
  const histories = depth === 'full' ? await historiesOf(deps, gathered.workflows) : [];
  const counts = Object.fromEntries(
    Object.entries(gathered.records).map(([key, value]) => [
      key,
      Array.isArray(value) ? value.length : value ? 1 : 0,
    ]),
  );
  const document = {
    dossier: depth,
    format: 'governed-runtime/dossier/v1',
    subject: body.subject,
    as_of: asOf,
    counts,
    proofs: gathered.proofs,
    records: gathered.records,
    ...(witnesses ? { witnesses } : {}),
    ...(depth === 'full'
      ? {
          workflow_histories: histories.map((h) => ({
            ...h.summary,
            sha256: sha256(h.json),
          })),
        }
      : {}),
  };
  const json = canonical(document);
  const digest = sha256(json);
  const dossierId = `dos_${digest.slice(0, 26)}`;
  const markdown = toMarkdown(`Dossier (${depth}): ${body.subject.kind} ${body.subject.id}`, {
    dossier_id: dossierId,
    sha256: digest,
    ...document,
  });
  const files: { name: string; content_type: string; bytes: Buffer }[] = [
    { name: 'dossier.json', content_type: 'application/json', bytes: Buffer.from(json, 'utf8') },
    { name: 'dossier.md', content_type: 'text/markdown', bytes: Buffer.from(markdown, 'utf8') },
    ...histories.map((h) => ({
      name: `history/${h.workflow_id}.json`,
      content_type: 'application/json',
      bytes: Buffer.from(h.json, 'utf8'),
    })),
  ];
  const artifacts = [];
  for (const file of files) {
    const { artifact } = await deps.repos.artifacts.put({
      path: `dossiers/${dossierId}/${file.name}`,
      kind: 'dossier',
      content_type: file.content_type,
      content: file.bytes,
      now: asOf ?? new Date(0).toISOString(),
    });
    artifacts.push({
      path: artifact.path,
      artifact_id: artifact._id,
      content_type: artifact.content_type,
      size: artifact.size,
      sha256: artifact.sha256,
    });
  }
  return {
    dossier_id: dossierId,
    depth,
    subject: body.subject,
    sha256: digest,
    as_of: asOf,
    counts,
    proofs: gathered.proofs,
    artifacts,
  };
}
