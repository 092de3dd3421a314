import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A local OTLP/HTTP receiver for the tracing bench: accepts, counts and discards. */
export interface OtlpSink {
  /** Its base URL, for `OTEL_EXPORTER_OTLP_ENDPOINT`. */
  url: string;
  /** Spans received so far (OTLP/JSON bodies), and the export requests that carried them. */
  spans: number;
  requests: number;
  stop(): Promise<void>;
}

/**
 * Answers every `POST /v1/traces` with an empty OTLP success after counting the spans of its
 * JSON body: the services pay for making and sending spans, and nothing is stored.
 */
export async function startOtlpSink(): Promise<OtlpSink> {
  const sink = { spans: 0, requests: 0 };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      sink.requests += 1;
      try {
        sink.spans += spansIn(JSON.parse(Buffer.concat(chunks).toString('utf8')) as ExportRequest);
      } catch {
        // Not JSON (a protobuf body): counted as a request only.
      }
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

interface ExportRequest {
  resourceSpans?: { scopeSpans?: { spans?: unknown[] }[] }[];
}

function spansIn(body: ExportRequest): number {
  let count = 0;
  for (const resource of body.resourceSpans ?? []) {
    for (const scope of resource.scopeSpans ?? []) count += scope.spans?.length ?? 0;
  }
  return count;
}
