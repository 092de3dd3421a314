import { TRACE_HEADER as LIBRARY_TRACE_HEADER } from '@temporalio/interceptors-opentelemetry/lib/instrumentation';
import type { WorkflowInterceptors } from '@temporalio/workflow';

/**
 * The workflow-side tracing module loads OpenTelemetry only for a traced call: since SDK
 * 1.14 every workflow evaluates its own copy of each module it loads, and OpenTelemetry's
 * modules were most of that cost in every action's first workflow task with traces off
 * (bench/results/actions-attribution.md). The traced path itself (spans from the approve
 * request to the effect) is covered end to end by test/observability/tracing.int.test.ts.
 */
describe('workflow tracing interceptors', () => {
  const OTEL_WORKFLOW = '@temporalio/interceptors-opentelemetry/lib/workflow';
  const OTEL_API = '@opentelemetry/api';

  /** The module under test in a fresh registry, with OpenTelemetry's loads recorded. */
  function freshModule() {
    const loaded: string[] = [];
    const calls: string[] = [];
    let module: { interceptors(): WorkflowInterceptors; TRACE_HEADER: string } | undefined;
    jest.isolateModules(() => {
      jest.doMock(OTEL_WORKFLOW, () => {
        loaded.push(OTEL_WORKFLOW);
        class Inbound {
          execute(input: unknown, next: (input: unknown) => unknown) {
            calls.push('otel.execute');
            return next(input);
          }
        }
        class Outbound {}
        class Internals {}
        return {
          OpenTelemetryInboundInterceptor: Inbound,
          OpenTelemetryOutboundInterceptor: Outbound,
          OpenTelemetryInternalsInterceptor: Internals,
        };
      });
      jest.doMock(OTEL_API, () => {
        loaded.push(OTEL_API);
        return jest.requireActual<object>(OTEL_API);
      });
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      module = require('../../src/workflows/tracing.interceptors');
    });
    return { module: module!, loaded, calls };
  }

  const executeInput = (headers: Record<string, unknown>) =>
    ({ headers, args: [] }) as unknown as Parameters<
      NonNullable<NonNullable<WorkflowInterceptors['inbound']>[number]['execute']>
    >[0];

  afterEach(() => {
    jest.dontMock(OTEL_WORKFLOW);
    jest.dontMock(OTEL_API);
  });

  it('names the header the library carries a trace context in', () => {
    expect(freshModule().module.TRACE_HEADER).toBe(LIBRARY_TRACE_HEADER);
  });

  it('loads no OpenTelemetry module for a workflow whose calls carry no trace', async () => {
    const { module, loaded, calls } = freshModule();
    const inbound = module.interceptors().inbound![0];
    const next = jest.fn(async () => 'ran');
    await expect(inbound.execute!(executeInput({}), next)).resolves.toBe('ran');
    expect(next).toHaveBeenCalledTimes(1);
    expect(loaded).toEqual([]);
    expect(calls).toEqual([]);
  });

  it('loads OpenTelemetry on the first traced call and hands the call to its interceptor', async () => {
    const { module, loaded, calls } = freshModule();
    const inbound = module.interceptors().inbound![0];
    const next = jest.fn(async () => 'ran');
    const traced = executeInput({ [LIBRARY_TRACE_HEADER]: { data: new Uint8Array() } });
    await expect(inbound.execute!(traced, next)).resolves.toBe('ran');
    expect(loaded.sort()).toEqual([OTEL_API, OTEL_WORKFLOW].sort());
    expect(calls).toEqual(['otel.execute']);
  });
});
