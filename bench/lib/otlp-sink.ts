import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A local OTLP/HTTP receiver for the tracing bench: accepts, counts and discards. */
export interface OtlpSink {
  /** Its base URL, for `OTEL_EXPORTER_OTLP_ENDPOINT`. */
  url: string;
  /** Spans received so far, the export requests that carried them, and their bodies' bytes. */
  spans: number;
  requests: number;
  bytes: number;
  stop(): Promise<void>;
}

/**
 * Answers every `POST /v1/traces` with an empty OTLP success after counting the spans of its
 * body, without parsing it: the sink runs in the bench's process, on the same two cores as the
 * services it measures, so it must cost next to nothing. An OTLP/JSON body is counted by its
 * `"spanId"` keys (a span's own; parents are `"parentSpanId"`), an OTLP/protobuf body by
 * walking the length-delimited fields down to the spans, skipping their contents.
 */
export async function startOtlpSink(): Promise<OtlpSink> {
  const sink = { spans: 0, requests: 0, bytes: 0 };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      sink.requests += 1;
      sink.bytes += body.length;
      const json = String(req.headers['content-type']).includes('json');
      sink.spans += json ? occurrences(body, SPAN_ID_KEY) : protobufSpans(body);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(sink, {
    url: `http://127.0.0.1:${port}`,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}

const SPAN_ID_KEY = Buffer.from('"spanId"');

function occurrences(body: Buffer, needle: Buffer): number {
  let count = 0;
  for (let at = body.indexOf(needle); at >= 0; at = body.indexOf(needle, at + needle.length)) {
    count += 1;
  }
  return count;
}

/**
 * Spans in an `ExportTraceServiceRequest`: field 1 (resource_spans) → field 2 (scope_spans)
 * → field 2 (spans), all length-delimited.
 */
function protobufSpans(body: Buffer): number {
  let count = 0;
  for (const resource of fields(body, 0, body.length, 1)) {
    for (const scope of fields(body, resource[0], resource[1], 2)) {
      for (const _span of fields(body, scope[0], scope[1], 2)) count += 1;
    }
  }
  return count;
}

/** The [start, end) of each length-delimited field numbered `wanted` in body[from, to). */
function* fields(
  body: Buffer,
  from: number,
  to: number,
  wanted: number,
): Generator<[number, number]> {
  let at = from;
  while (at < to) {
    let key: number;
    [key, at] = varint(body, at);
    const wireType = key & 7;
    if (wireType === 0) [, at] = varint(body, at);
    else if (wireType === 1) at += 8;
    else if (wireType === 5) at += 4;
    else if (wireType === 2) {
      let length: number;
      [length, at] = varint(body, at);
      if (key >>> 3 === wanted) yield [at, at + length];
      at += length;
    } else return; // groups are not used by OTLP: stop rather than misread
  }
}

function varint(body: Buffer, at: number): [number, number] {
  let value = 0;
  let shift = 0;
  for (;;) {
    const byte = body[at++];
    value += (byte & 0x7f) * 2 ** shift;
    if (byte < 0x80 || at >= body.length) return [value, at];
    shift += 7;
  }
}
