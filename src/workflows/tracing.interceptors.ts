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
import type { Context } from '@opentelemetry/api';
import type {
  OpenTelemetryInboundInterceptor,
  OpenTelemetryInternalsInterceptor,
  OpenTelemetryOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry/lib/workflow';
import type {
  Headers,
  WorkflowInboundCallsInterceptor,
  WorkflowInterceptors,
} from '@temporalio/workflow';
import { approveActionUpdate, executeActionUpdate } from './external-action.contract';

/**
 * The activities that execute an action's effect (the classic shape's effect; the lean
 * shape's execution in one step), and the updates that can release them.
 */
const EFFECT_ACTIVITIES: ReadonlySet<string> = new Set(['applyAction', 'executeRecorded']);
const RELEASING_UPDATES: ReadonlySet<string> = new Set([
  approveActionUpdate.name,
  executeActionUpdate.name,
]);

/**
 * The header the library's client and activity interceptors carry a trace context in
 * (`TRACE_HEADER` of `@temporalio/interceptors-opentelemetry/lib/instrumentation`; written
 * out because importing that module evaluates `@opentelemetry/api`; a test holds the two
 * equal).
 */
export const TRACE_HEADER = '_tracer-data';

const carriesTrace = (headers: Headers): boolean => headers[TRACE_HEADER] !== undefined;

/**
 * OpenTelemetry's modules, loaded on a workflow's first traced call, never at the top of
 * this module. Since SDK 1.14 the sandbox evaluates every module a workflow loads once per
 * workflow (only preloaded modules are shared, and these keep per-workflow state: the
 * context manager, the tracer), and evaluating `@opentelemetry/semantic-conventions`, `api`,
 * `core`, `sdk-trace-base` and `resources` is most of a workflow's module evaluation: every
 * action would pay it in its first workflow task with traces off
 * (bench/results/actions-attribution.md). A `require` inside a
 * function is still bundled by webpack, and evaluated when first called.
 */
/* eslint-disable @typescript-eslint/no-require-imports -- loaded lazily on purpose (above) */
const loadOpenTelemetry = () => ({
  api: require('@opentelemetry/api') as typeof import('@opentelemetry/api'),
  workflow:
    require('@temporalio/interceptors-opentelemetry/lib/workflow') as typeof import('@temporalio/interceptors-opentelemetry/lib/workflow'),
});
/* eslint-enable @typescript-eslint/no-require-imports */

interface OpenTelemetryInterceptors {
  api: ReturnType<typeof loadOpenTelemetry>['api'];
  inbound: OpenTelemetryInboundInterceptor;
  outbound: OpenTelemetryOutboundInterceptor;
  internals: OpenTelemetryInternalsInterceptor;
}

/** Called once per workflow execution; what it keeps lives as long as that execution. */
export const interceptors = (): WorkflowInterceptors => {
  // Made on the first traced call: constructing them registers the sandbox's tracer.
  let otel: OpenTelemetryInterceptors | undefined;
  const traced = (): OpenTelemetryInterceptors => {
    if (otel) return otel;
    const { api, workflow } = loadOpenTelemetry();
    return (otel = {
      api,
      inbound: new workflow.OpenTelemetryInboundInterceptor(),
      outbound: new workflow.OpenTelemetryOutboundInterceptor(),
      internals: new workflow.OpenTelemetryInternalsInterceptor(),
    });
  };
  // The context of the latest traced decision that can release the effect.
  let releasing: Context | undefined;
  /** The context an outbound call runs in, when it belongs to a trace at all. */
  const outboundContext = (activityType?: string): Context | undefined => {
    if (!otel) return undefined;
    const context =
      activityType && EFFECT_ACTIVITIES.has(activityType) && releasing
        ? releasing
        : otel.api.context.active();
    return otel.api.trace.getSpan(context) ? context : undefined;
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
            if (RELEASING_UPDATES.has(input.name)) releasing = otel!.api.context.active();
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
            ? otel!.api.context.with(context, () => otel!.outbound.scheduleActivity(input, next))
            : next(input);
        },
        scheduleLocalActivity: (input, next) => {
          const context = outboundContext(input.activityType);
          return context
            ? otel!.api.context.with(context, () =>
                otel!.outbound.scheduleLocalActivity(input, next),
              )
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
