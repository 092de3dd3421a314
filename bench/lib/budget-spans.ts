import type { CollectedSpan } from './otlp-collector';

/** One trace: its root span (no parent) and every span received for it. */
export interface Trace {
  root: CollectedSpan;
  spans: CollectedSpan[];
}

/**
 * The spans grouped by trace. A trace whose root never arrived (a dropped export, or spans
 * of a request that started before the collector) is left out and counted in `orphans`.
 */
export function tracesOf(spans: readonly CollectedSpan[]): { traces: Trace[]; orphans: number } {
  const byTrace = new Map<string, CollectedSpan[]>();
  for (const span of spans) {
    const list = byTrace.get(span.traceId);
    if (list) list.push(span);
    else byTrace.set(span.traceId, [span]);
  }
  const traces: Trace[] = [];
  let orphans = 0;
  for (const list of byTrace.values()) {
    const root = list.find((span) => span.parentSpanId === undefined);
    if (root) traces.push({ root, spans: list });
    else orphans += 1;
  }
  return { traces, orphans };
}

/**
 * A span the workflow made inside the sandbox (`RunWorkflow:…`, `HandleUpdate:…`,
 * `StartActivity:…`): the worker's span sink stamps the workflow's identity on those only.
 * Their times are workflow time (the workflow task's start, whole milliseconds), not the
 * moments the work happened.
 */
export function isWorkflowSpan(span: CollectedSpan): boolean {
  return span.attributes['workflowType'] !== undefined;
}

/**
 * Each span's share of its trace's critical path, in ms: the root's interval is walked back
 * from its end; at each moment the time belongs to the child that finished last before it
 * (recursively), or else to the span itself (its self time: its own work, or waiting on
 * something that has no span, such as the Temporal server). Children are clipped to their
 * parent's interval, so the shares of a trace sum to its root's duration exactly. Spans that
 * run after the root has ended (work the request did not wait for) get no share.
 *
 * Workflow spans are passed through: their times are workflow time, so they get no share
 * and their children count as children of their nearest ancestor that is not one (an
 * activity's `RunActivity:…` then sits under the api's `StartWorkflowUpdate:…`, whose share
 * is the wait on the server and the workflow tasks beyond the activities).
 */
export function criticalPath(trace: Trace): Map<CollectedSpan, number> {
  const byId = new Map(trace.spans.map((span) => [span.spanId, span]));
  const effectiveParent = (span: CollectedSpan): string | undefined => {
    let parentId = span.parentSpanId;
    for (let hops = 0; parentId !== undefined && hops < 64; hops += 1) {
      const parent = byId.get(parentId);
      if (!parent || !isWorkflowSpan(parent)) return parentId;
      parentId = parent.parentSpanId;
    }
    return parentId;
  };
  const children = new Map<string, CollectedSpan[]>();
  for (const span of trace.spans) {
    if (span.parentSpanId === undefined || isWorkflowSpan(span)) continue;
    const parentId = effectiveParent(span);
    if (parentId === undefined) continue;
    const list = children.get(parentId);
    if (list) list.push(span);
    else children.set(parentId, [span]);
  }
  const shares = new Map<CollectedSpan, number>();
  const add = (span: CollectedSpan, ms: number) => {
    if (ms > 0) shares.set(span, (shares.get(span) ?? 0) + ms);
  };
  const walk = (span: CollectedSpan, from: number, to: number, depth: number) => {
    const pending = (children.get(span.spanId) ?? []).filter(
      (child) => child.startMs < to && child.endMs > from && depth < 64,
    );
    let cursor = to;
    for (;;) {
      let next: CollectedSpan | undefined;
      let nextEnd = -Infinity;
      for (const child of pending) {
        const end = Math.min(child.endMs, cursor);
        if (child.startMs < cursor && end > nextEnd) [next, nextEnd] = [child, end];
      }
      if (!next) break;
      pending.splice(pending.indexOf(next), 1);
      const start = Math.max(next.startMs, from);
      add(span, cursor - nextEnd);
      walk(next, start, nextEnd, depth + 1);
      cursor = start;
    }
    add(span, cursor - from);
  };
  walk(trace.root, trace.root.startMs, trace.root.endMs, 0);
  return shares;
}

/** What a span is a step of: the process that made it and the step's name in the tables. */
export function stepOf(span: CollectedSpan): { process: string; step: string } {
  const process = span.service.replace(/^governed-runtime-/, '');
  if (span.attributes['db.system'] === 'mongodb') {
    const operation = String(span.attributes['db.operation.name'] ?? span.name);
    const collection = span.attributes['db.collection.name'];
    return { process, step: `mongo ${operation}${collection ? ` ${String(collection)}` : ''}` };
  }
  // A server span's share is the request's own work between its children (middleware, JSON).
  if (span.kind === 2) return { process, step: `http ${span.name}` };
  // Made in the sandbox, in workflow time: counted, never on the critical path.
  if (isWorkflowSpan(span)) return { process: 'workflow', step: span.name };
  // A Temporal client call's share: the wait on the server and the worker's workflow tasks.
  if (
    span.attributes['temporalWorkflowId'] !== undefined &&
    !span.name.startsWith('RunActivity:')
  ) {
    return { process, step: `temporal ${span.name}` };
  }
  return { process, step: span.name };
}

/** One row of a unit's table: a step, summed over the unit's traces. */
export interface StepRow {
  process: string;
  step: string;
  /** Spans of the step. */
  count: number;
  /** The spans' durations summed (a parent's includes its children's). */
  spanMs: number;
  /** The step's share of the critical paths (self time on the path; rows sum to the paths). */
  pathMs: number;
}

/** The steps of the given traces, one row per process and step, most critical-path time first. */
export function stepRows(traces: readonly Trace[]): StepRow[] {
  const rows = new Map<string, StepRow>();
  for (const trace of traces) {
    const shares = criticalPath(trace);
    for (const span of trace.spans) {
      const { process, step } = stepOf(span);
      const key = `${process}\u0000${step}`;
      let row = rows.get(key);
      if (!row) rows.set(key, (row = { process, step, count: 0, spanMs: 0, pathMs: 0 }));
      row.count += 1;
      row.spanMs += span.endMs - span.startMs;
      row.pathMs += shares.get(span) ?? 0;
    }
  }
  return [...rows.values()].sort((a, b) => b.pathMs - a.pathMs || b.spanMs - a.spanMs);
}

/** A table row per unit, as the report prints it. */
export type BudgetRow = Record<string, number | string>;

/**
 * The rows per unit (counts and ms divided by `units`), the first `top` as they are and the
 * rest summed into one `other (n steps)` row, then a `total` row. `count` to 2 decimals
 * (a background flush every few units shows as 0.25), ms to 0.1 (ms each to 0.01).
 */
export function budgetTable(
  rows: readonly StepRow[],
  units: number,
  top = 12,
): Record<string, BudgetRow> {
  const per = Math.max(1, units);
  const table: Record<string, BudgetRow> = {};
  const line = (r: Omit<StepRow, 'step'>): BudgetRow => ({
    process: r.process,
    count: round(r.count / per, 100),
    pathMs: round(r.pathMs / per, 10),
    spanMs: round(r.spanMs / per, 10),
    msEach: r.count > 0 ? round(r.spanMs / r.count, 100) : 0,
  });
  for (const row of rows.slice(0, top)) table[row.step] = line(row);
  const rest = rows.slice(top);
  if (rest.length > 0) {
    table[`other (${rest.length} steps)`] = line({
      process: [...new Set(rest.map((r) => r.process))].join('+'),
      count: sum(rest, (r) => r.count),
      spanMs: sum(rest, (r) => r.spanMs),
      pathMs: sum(rest, (r) => r.pathMs),
    });
  }
  table['total'] = {
    process: '',
    count: round(sum(rows, (r) => r.count) / per, 100),
    pathMs: round(sum(rows, (r) => r.pathMs) / per, 10),
    spanMs: '',
    msEach: '',
  };
  return table;
}

/**
 * The steps that cost a unit more in a second run (`after`) than in a first (`before`), by
 * the ms per unit they add (the difference of their span ms per unit), the `top` most first:
 * what stored data, a change or a load costs each step.
 */
export function addedRows(
  before: readonly StepRow[],
  beforeUnits: number,
  after: readonly StepRow[],
  afterUnits: number,
  top = 8,
): Record<string, BudgetRow> {
  const earlier = new Map(before.map((row) => [`${row.process}\u0000${row.step}`, row]));
  const added = after.map((row) => {
    const was = earlier.get(`${row.process}\u0000${row.step}`);
    const perUnit = row.spanMs / Math.max(1, afterUnits);
    const wasPerUnit = (was?.spanMs ?? 0) / Math.max(1, beforeUnits);
    return { row, was, addedMs: perUnit - wasPerUnit };
  });
  added.sort((a, b) => b.addedMs - a.addedMs);
  return Object.fromEntries(
    added.slice(0, top).map(({ row, was, addedMs }) => [
      row.step,
      {
        process: row.process,
        count: round(row.count / Math.max(1, afterUnits), 100),
        msEachBefore: was && was.count > 0 ? round(was.spanMs / was.count, 100) : '',
        msEachAfter: row.count > 0 ? round(row.spanMs / row.count, 100) : 0,
        addedMs: round(addedMs, 10),
      },
    ]),
  );
}

/** MongoDB commands of the rows (per process), and their critical-path ms, per unit. */
export function mongoSummary(rows: readonly StepRow[], units: number): Record<string, number> {
  const per = Math.max(1, units);
  const out: Record<string, number> = {};
  for (const row of rows) {
    if (!row.step.startsWith('mongo ')) continue;
    out[`mongo_${row.process}`] = (out[`mongo_${row.process}`] ?? 0) + row.count;
    out['mongoPathMs'] = (out['mongoPathMs'] ?? 0) + row.pathMs;
  }
  return Object.fromEntries(
    Object.entries(out).map(([k, v]) => [k, round(v / per, k === 'mongoPathMs' ? 10 : 100)]),
  );
}

const sum = <T>(list: readonly T[], pick: (item: T) => number): number =>
  list.reduce((total, item) => total + pick(item), 0);
const round = (value: number, scale: number): number => Math.round(value * scale) / scale;
