/**
 * Workflow-side tracing, in every build of the workflow code (src/worker/workflow-bundle.ts).
 *
 * It hands a workflow's calls to `@temporalio/interceptors-opentelemetry` only when they
 * carry a trace: a start, signal or update whose headers hold the context the client
 * interceptor put there (traces on in the api or the worker that sent it). Otherwise every
 * call goes straight to the next interceptor, as if this module were absent: no tracer is
 * made, no span, no sink call, and the replay of a history recorded without traces takes
 * exactly the path it took (the stored histories' replay test holds it to that).
 *
 * One rule of our own: the effect of an action (`applyAction`) runs after the decision that
 * released it (an approval of an action that executes by itself, or the `execute`
 * decision), but the workflow's main routine schedules it, whose context is the proposal's
 * trace. The effect is traced as part of the releasing decision's trace instead, so one
 * trace runs from `POST …/approve` (or `…/execute`) to the effect's activity.
 */
import { context as otelContext, trace, type Context } from '@opentelemetry/api';
import {
  OpenTelemetryInboundInterceptor,
  OpenTelemetryInternalsInterceptor,
  OpenTelemetryOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry/lib/workflow';
import { TRACE_HEADER } from '@temporalio/interceptors-opentelemetry/lib/instrumentation';
import type {
  Headers,
  WorkflowInboundCallsInterceptor,
  WorkflowInterceptors,
} from '@temporalio/workflow';
import { approveActionUpdate, executeActionUpdate } from './shared';

/** The activity that executes an action's effect, and the updates that can release it. */
const EFFECT_ACTIVITY = 'applyAction';
const RELEASING_UPDATES: ReadonlySet<string> = new Set([
  approveActionUpdate.name,
  executeActionUpdate.name,
]);

const carriesTrace = (headers: Headers): boolean => headers[TRACE_HEADER] !== undefined;

interface OpenTelemetryInterceptors {
  inbound: OpenTelemetryInboundInterceptor;
  outbound: OpenTelemetryOutboundInterceptor;
  internals: OpenTelemetryInternalsInterceptor;
}

/** Called once per workflow execution; what it keeps lives as long as that execution. */
export const interceptors = (): WorkflowInterceptors => {
  // Made on the first traced call: constructing them registers the sandbox's tracer.
  let otel: OpenTelemetryInterceptors | undefined;
  const traced = (): OpenTelemetryInterceptors =>
    (otel ??= {
      inbound: new OpenTelemetryInboundInterceptor(),
      outbound: new OpenTelemetryOutboundInterceptor(),
      internals: new OpenTelemetryInternalsInterceptor(),
    });
  // The context of the latest traced decision that can release the effect.
  let releasing: Context | undefined;
  /** The context an outbound call runs in, when it belongs to a trace at all. */
  const outboundContext = (activityType?: string): Context | undefined => {
    if (!otel) return undefined;
    const context =
      activityType === EFFECT_ACTIVITY && releasing ? releasing : otelContext.active();
    return trace.getSpan(context) ? context : undefined;
  };

  return {
    inbound: [
      {
        execute: (input, next) =>
          carriesTrace(input.headers) ? traced().inbound.execute(input, next) : next(input),
        handleSignal: (input, next) =>
          carriesTrace(input.headers) ? traced().inbound.handleSignal(input, next) : next(input),
        // Validators are not traced: a validator's span stayed the active context of the
        // promises its handler then made (the approval's record showed under the validator,
        // not the handler). A refused update shows as the client span's error instead.
        handleUpdate: (input, next) => {
          if (!carriesTrace(input.headers)) return next(input);
          // Update handlers are traced from interceptors-opentelemetry 1.24 on; with an
          // earlier release the update runs untraced (its client sends no context either).
          const inbound: WorkflowInboundCallsInterceptor = traced().inbound;
          if (!inbound.handleUpdate) return next(input);
          return inbound.handleUpdate(input, (inner) => {
            if (RELEASING_UPDATES.has(input.name)) releasing = otelContext.active();
            return next(inner);
          });
        },
      },
    ],
    outbound: [
      {
        scheduleActivity: (input, next) => {
          const context = outboundContext(input.activityType);
          return context
            ? otelContext.with(context, () => otel!.outbound.scheduleActivity(input, next))
            : next(input);
        },
        scheduleLocalActivity: (input, next) => {
          const context = outboundContext(input.activityType);
          return context
            ? otelContext.with(context, () => otel!.outbound.scheduleLocalActivity(input, next))
            : next(input);
        },
        startChildWorkflowExecution: (input, next) =>
          outboundContext() ? otel!.outbound.startChildWorkflowExecution(input, next) : next(input),
        signalWorkflow: (input, next) =>
          outboundContext() ? otel!.outbound.signalWorkflow(input, next) : next(input),
        continueAsNew: (input, next) =>
          outboundContext() ? otel!.outbound.continueAsNew(input, next) : next(input),
        getLogAttributes: (input, next) =>
          otel ? otel.outbound.getLogAttributes(input, next) : next(input),
      },
    ],
    internals: [
      {
        dispose: (input, next) => {
          // The library's dispose is async only by its signature: it detaches its context
          // manager and calls the next interceptor at once.
          if (otel) void otel.internals.dispose(input, next);
          else next(input);
        },
      },
    ],
  };
};
