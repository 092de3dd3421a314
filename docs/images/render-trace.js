// Draws one captured trace as a waterfall SVG (docs/observability.md).
//
//   TRACE_CAPTURE_FILE=/tmp/approve-trace.json npx jest test/observability/tracing.int.test.ts
//   node docs/images/render-trace.js /tmp/approve-trace.json docs/images/approve-trace.svg
//
// The input is what the tracing test writes: the spans of the approve request's trace with
// name, ids, parent, kind, instrumentation scope, start and end (ms) and attributes.
const { readFileSync, writeFileSync } = require('node:fs');

const [input, output] = process.argv.slice(2);
if (!input || !output) {
  console.error('usage: node docs/images/render-trace.js <spans.json> <out.svg>');
  process.exit(2);
}
const spans = JSON.parse(readFileSync(input, 'utf8'));

/** Where a span was made, by its instrumentation scope: the legend and the bar's colour. */
const SOURCES = [
  { scope: '@temporalio/interceptor-client', label: 'api: Temporal client', color: '#7c3aed' },
  { scope: '@temporalio/interceptor-workflow', label: 'worker: workflow', color: '#0891b2' },
  { scope: '@temporalio/interceptor-activity', label: 'worker: activity', color: '#16a34a' },
];
const sourceOf = (span) => {
  const known = SOURCES.find((s) => s.scope === span.scope);
  if (known) return known;
  if (span.attributes['db.system'] === 'mongodb') {
    return { label: 'MongoDB command', color: '#ca8a04' };
  }
  return { label: 'api: HTTP server', color: '#dc2626' };
};

// Depth-first from the root, children by start time: the order a trace viewer shows.
const byParent = new Map();
for (const span of spans) {
  const list = byParent.get(span.parent_span_id) ?? [];
  list.push(span);
  byParent.set(span.parent_span_id, list);
}
const ids = new Set(spans.map((s) => s.span_id));
const roots = spans.filter((s) => !s.parent_span_id || !ids.has(s.parent_span_id));
const rows = [];
const visit = (span, depth) => {
  rows.push({ span, depth });
  const children = (byParent.get(span.span_id) ?? []).sort((a, b) => a.start_ms - b.start_ms);
  for (const child of children) visit(child, depth + 1);
};
for (const root of roots.sort((a, b) => a.start_ms - b.start_ms)) visit(root, 0);

const t0 = Math.min(...spans.map((s) => s.start_ms));
const t1 = Math.max(...spans.map((s) => s.end_ms));
const total = Math.max(t1 - t0, 1);
const ROW = 22;
const LABEL = 430;
const BARS = 640;
const TOP = 74;
const width = LABEL + BARS + 90;
const height = TOP + rows.length * ROW + 70;
const x = (ms) => Math.round((LABEL + ((ms - t0) / total) * BARS) * 10) / 10;
const esc = (text) =>
  String(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

const out = [];
out.push(
  `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="ui-monospace, Menlo, monospace" font-size="12">`,
  `<rect width="100%" height="100%" fill="#ffffff"/>`,
  `<text x="12" y="22" font-size="15" font-weight="bold">One trace: POST /v1/external-actions/{action_id}/approve → update handler → effect activity</text>`,
  `<text x="12" y="42" fill="#555">${rows.length} spans, ${total.toFixed(1)} ms, trace captured from a real run (test/observability/tracing.int.test.ts)</text>`,
);
// Time grid.
const step = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000].find((s) => total / s <= 10) ?? 1000;
for (let ms = 0; ms <= total; ms += step) {
  const gx = x(t0 + ms);
  out.push(
    `<line x1="${gx}" y1="${TOP - 6}" x2="${gx}" y2="${TOP + rows.length * ROW}" stroke="#e5e7eb"/>`,
    `<text x="${gx + 2}" y="${TOP - 8}" fill="#888" font-size="10">${ms} ms</text>`,
  );
}
rows.forEach(({ span, depth }, i) => {
  const y = TOP + i * ROW;
  const { color } = sourceOf(span);
  const bx = x(span.start_ms);
  const bw = Math.max(Math.round((x(span.end_ms) - bx) * 10) / 10, 1.5);
  const duration = (span.end_ms - span.start_ms).toFixed(1);
  if (i % 2 === 0) {
    out.push(`<rect x="0" y="${y}" width="${width}" height="${ROW}" fill="#f9fafb"/>`);
  }
  out.push(
    `<text x="${12 + depth * 14}" y="${y + 15}">${esc(span.name)}</text>`,
    `<rect x="${bx}" y="${y + 5}" width="${bw}" height="${ROW - 10}" rx="2" fill="${color}"/>`,
    `<text x="${Math.min(bx + bw + 4, width - 60)}" y="${y + 15}" fill="#555" font-size="10">${duration} ms</text>`,
  );
});
// Legend.
const legendY = TOP + rows.length * ROW + 30;
const legend = [
  { label: 'api: HTTP server', color: '#dc2626' },
  ...SOURCES,
  { label: 'MongoDB command', color: '#ca8a04' },
];
legend.forEach(({ label, color }, i) => {
  const lx = 12 + i * 210;
  out.push(
    `<rect x="${lx}" y="${legendY - 10}" width="12" height="12" fill="${color}"/>`,
    `<text x="${lx + 18}" y="${legendY}">${esc(label)}</text>`,
  );
});
out.push('</svg>');
writeFileSync(output, `${out.join('\n')}\n`);
console.log(`${output}: ${rows.length} spans over ${total.toFixed(1)} ms`);
