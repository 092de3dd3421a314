import { ExportResultCode } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';

/** Exports `spans` through a real OTLP exporter; resolves once the receiver has answered. */
export const exportSpans = (exporter: SpanExporter, spans: ReadableSpan[]): Promise<void> =>
  new Promise<void>((resolve, reject) =>
    exporter.export(spans, (result) =>
      result.code === ExportResultCode.SUCCESS
        ? resolve()
        : reject(result.error ?? new Error('export failed')),
    ),
  );
