import { CLOSED_CONNECTION_DETAILS, lazyTemporalConnection } from '../../src/temporal/connect';

// Nothing listens on port 1: every attempt fails UNAVAILABLE, which the SDK retries from a
// timer. Closing the connection while a retry waits must reject the call, not throw from
// the timer (an uncaught exception fails this test, and ends a real process).
describe('a Temporal connection closed while a call waits to be retried', () => {
  const unreachable = { address: '127.0.0.1:1' };
  const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

  it('rejects the waiting call with CANCELLED and throws nothing from the timer', async () => {
    const connection = lazyTemporalConnection(unreachable);
    const call = connection.workflowService.getSystemInfo({});
    const settled = call.then(
      () => 'resolved',
      (error: { code?: number; details?: string }) => error,
    );
    await sleep(150);
    await connection.close();
    const outcome = await settled;
    expect(outcome).toMatchObject({ code: 1, details: CLOSED_CONNECTION_DETAILS });
    await sleep(500); // any retry timer still pending would fire here
  });

  it('answers a call made after close with CANCELLED too', async () => {
    const connection = lazyTemporalConnection(unreachable);
    await connection.close();
    await expect(connection.workflowService.getSystemInfo({})).rejects.toMatchObject({
      code: 1,
    });
  });
});
