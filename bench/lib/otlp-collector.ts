import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

/** One span as the budget reads it: identity, parentage, name, process and times. */
export interface CollectedSpan {
  traceId: string;
  spanId: string;
  /** Absent on a trace's root. */
  parentSpanId?: string;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  /** The resource's `service.name` (`governed-runtime-api`, `governed-runtime-worker`). */
  service: string;
  /** Unix epoch milliseconds (microsecond precision). */
  startMs: number;
  endMs: number;
  attributes: Record<string, string | number | boolean>;
}

/** A local OTLP/HTTP receiver for the budget bench: keeps every span of every JSON export. */
export interface OtlpCollector {
  /** Its base URL, for `OTEL_EXPORTER_OTLP_ENDPOINT`. */
  url: string;
  spans: CollectedSpan[];
  /** Export requests received, and those whose body could not be read (protobuf, bad JSON). */
  requests: number;
  unreadable: number;
  stop(): Promise<void>;
}

/**
 * Unlike the tracing bench's sink (which must cost nothing while throughput is measured),
 * this receiver parses what it gets: the budget's traced pass counts commands and times
 * spans, and its CPU figures come from a separate pass with traces off. It reads OTLP/JSON
 * only (the processes are started with `OTEL_EXPORTER_OTLP_PROTOCOL=http/json`); any other
 * body is answered and counted as unreadable, so a report can say spans went missing.
 */
export async function startOtlpCollector(): Promise<OtlpCollector> {
  const collector = { spans: [] as CollectedSpan[], requests: 0, unreadable: 0 };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      collector.requests += 1;
      try {
        let body = Buffer.concat(chunks);
        if (req.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
        if (!String(req.headers['content-type']).includes('json')) throw new Error('not JSON');
        const request = JSON.parse(body.toString('utf8')) as ExportTraceServiceRequest;
        for (const span of spansOfOtlpJson(request)) {
          collector.spans.push(span);
        }
      } catch {
        collector.unreadable += 1;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(collector, {
    url: `http://127.0.0.1:${port}`,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
}
interface OtlpAttribute {
  key: string;
  value?: OtlpValue;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind?: number;
  startTimeUnixNano: OtlpTime;
  endTimeUnixNano: OtlpTime;
  attributes?: OtlpAttribute[];
}
/** The JS exporter's JSON sends nanoseconds as a decimal string; others send numbers or long bits. */
type OtlpTime = string | number | { low: number; high: number };
interface ExportTraceServiceRequest {
  resourceSpans?: {
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: { spans?: OtlpSpan[] }[];
  }[];
}

/** The spans of one OTLP/JSON `ExportTraceServiceRequest`, with their resource's service name. */
export function spansOfOtlpJson(request: ExportTraceServiceRequest): CollectedSpan[] {
  const spans: CollectedSpan[] = [];
  for (const resourceSpans of request.resourceSpans ?? []) {
    const resource = attributesOf(resourceSpans.resource?.attributes);
    const service = String(resource['service.name'] ?? 'unknown');
    for (const scope of resourceSpans.scopeSpans ?? []) {
      for (const span of scope.spans ?? []) {
        spans.push({
          traceId: span.traceId,
          spanId: span.spanId,
          ...(span.parentSpanId ? { parentSpanId: span.parentSpanId } : {}),
          name: span.name,
          kind: span.kind ?? 0,
          service,
          startMs: msOf(span.startTimeUnixNano),
          endMs: msOf(span.endTimeUnixNano),
          attributes: attributesOf(span.attributes),
        });
      }
    }
  }
  return spans;
}

function attributesOf(list: OtlpAttribute[] | undefined): CollectedSpan['attributes'] {
  const out: CollectedSpan['attributes'] = {};
  for (const { key, value } of list ?? []) {
    if (!value) continue;
    if (value.stringValue !== undefined) out[key] = value.stringValue;
    else if (value.intValue !== undefined) out[key] = Number(value.intValue);
    else if (value.doubleValue !== undefined) out[key] = value.doubleValue;
    else if (value.boolValue !== undefined) out[key] = value.boolValue;
  }
  return out;
}

/** Nanoseconds since the epoch, as milliseconds with microsecond precision. */
function msOf(time: OtlpTime): number {
  const nanos =
    typeof time === 'object'
      ? (BigInt(time.high >>> 0) << 32n) + BigInt(time.low >>> 0)
      : BigInt(typeof time === 'number' ? Math.round(time) : time);
  return Number(nanos / 1000n) / 1000;
}
