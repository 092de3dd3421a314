import type * as TemporalOtel from '@temporalio/interceptors-opentelemetry';
import { loadTemporalInterceptors } from '../observability/tracing-sdk';
import type { InjectedSinks, WorkerOptions } from '@temporalio/worker';
import type { OpenTelemetrySinks } from '@temporalio/interceptors-opentelemetry/lib/workflow';
import type { WorkflowInfo } from '@temporalio/workflow';
import type { SpanExporter, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { Tracing } from '../observability/tracing';

/**
 * A worker's options when traces are on: every activity runs in a span continuing the
 * context its workflow put in the activity's headers, and the workflows' own spans, made
 * inside the sandbox, leave it through the `exporter` sink into the process's span
 * processor. The workflow side is the interceptor module in every bundle.
 */
export function workerTracingOptions(
  tracing: Pick<Tracing, 'spanProcessor' | 'resource'>,
): Pick<WorkerOptions, 'interceptors' | 'sinks'> {
  const temporalOtel = loadTemporalInterceptors();
  const { OpenTelemetryActivityInboundInterceptor, OpenTelemetryActivityOutboundInterceptor } =
    temporalOtel;
  return {
    interceptors: {
      activity: [
        (ctx) => ({
          inbound: new OpenTelemetryActivityInboundInterceptor(ctx),
          outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
        }),
      ],
    },
    sinks: workflowSpanSink(temporalOtel, tracing),
  };
}

/**
 * The sink the workflows' spans leave the sandbox through. The library adds the whole
 * `WorkflowInfo` to each span (search attributes, memo, build ids: a kilobyte a span);
 * the spans here carry the workflow's identity only.
 */
function workflowSpanSink(
  temporalOtel: typeof TemporalOtel,
  tracing: Pick<Tracing, 'spanProcessor' | 'resource'>,
): InjectedSinks<OpenTelemetrySinks> {
  const exporter = temporalOtel.makeWorkflowExporter(
    intoProcessor(tracing.spanProcessor),
    tracing.resource,
  );
  return {
    exporter: {
      export: {
        ...exporter.export,
        fn: (info, spans) => exporter.export.fn(identityOf(info), spans),
      },
    },
  };
}

function identityOf(info: WorkflowInfo): WorkflowInfo {
  const { workflowId, runId, workflowType, taskQueue, namespace, attempt } = info;
  // Only spread onto the span's attributes by the library: the rest is left out on purpose.
  return { workflowId, runId, workflowType, taskQueue, namespace, attempt } as WorkflowInfo;
}

/**
 * The workflows' spans handed to the process's span processor (batched and exported with
 * the others), as the sink of interceptors-opentelemetry 1.24 does when given the processor
 * itself. In the shape of an exporter, which the sink of every release accepts (1.13 takes
 * only an exporter), so the package's version can move with the SDK's and nothing else.
 */
function intoProcessor(processor: SpanProcessor): SpanExporter {
  return {
    export(spans, done) {
      for (const span of spans) processor.onEnd(span);
      // ExportResultCode.SUCCESS of `@opentelemetry/core` (a numeric enum: 0), so that
      // package is not loaded for it.
      done({ code: 0 });
    },
    shutdown: () => Promise.resolve(),
  };
}
