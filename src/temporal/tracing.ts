import { context, trace } from '@opentelemetry/api';
import type { ClientInterceptors, WorkflowClientInterceptor } from '@temporalio/client';
import { loadTemporalInterceptors } from '../observability/tracing-sdk';

/** Every workflow call the client interceptor can trace. */
const CALLS = [
  'start',
  'startWithDetails',
  'startUpdate',
  'startUpdateWithStart',
  'signal',
  'signalWithStart',
  'query',
  'terminate',
  'cancel',
  'describe',
] as const satisfies ReadonlyArray<keyof WorkflowClientInterceptor>;

type Call = (input: unknown, next: (input: unknown) => Promise<unknown>) => Promise<unknown>;

/**
 * A Temporal client's interceptors when traces are on: starts, signals, updates, queries
 * become spans (`StartWorkflowUpdate:approve`, …) and carry the trace's context to the
 * workflow in a header, through `@temporalio/interceptors-opentelemetry` (which finds the
 * tracer in the OpenTelemetry API's registry, where `startTracing` put it).
 *
 * Only a call made inside a trace is traced: the api's background work (the closed-run
 * follower's describes, the failure watcher) would otherwise start a trace per poll, as
 * MongoDB's background commands would (src/observability/mongo-spans.ts).
 */
export function temporalClientTracing(): ClientInterceptors {
  const otel = new (loadTemporalInterceptors().OpenTelemetryWorkflowClientInterceptor)();
  const inTrace = (): boolean => trace.getSpan(context.active()) !== undefined;
  const interceptor: Record<string, Call> = {};
  for (const name of CALLS) {
    const traced = (otel as WorkflowClientInterceptor)[name] as Call | undefined;
    if (!traced) continue;
    interceptor[name] = (input, next) => (inTrace() ? traced.call(otel, input, next) : next(input));
  }
  return { workflow: [interceptor] };
}
