import {
  InterceptingCall,
  Metadata,
  status,
  type Interceptor,
  type InterceptingListener,
} from '@grpc/grpc-js';
import {
  Connection,
  defaultGrpcRetryOptions,
  makeGrpcRetryInterceptor,
  type ConnectionOptions,
} from '@temporalio/client';

/**
 * A client connection to Temporal that can be closed while a call waits to be retried.
 *
 * The SDK's retry interceptor waits (100 ms and up) before it retries a call that failed with
 * a retryable status, then creates the next attempt from a timer. If the connection was closed
 * in between, gRPC throws "Channel has been shut down" inside that timer: an uncaught
 * exception, which ends a worker or api process on its way down, and fails whatever test is
 * running at that moment. The guard below sits under the retry interceptor and turns that
 * throw into a CANCELLED status, which the retry interceptor does not retry: the waiting call
 * is rejected, the process is not.
 */
export function connectTemporal(options: ConnectionOptions): Promise<Connection> {
  return Connection.connect({ ...options, interceptors: guardedInterceptors() });
}

/** The same connection, connected on its first call (`Connection.lazy`). */
export function lazyTemporalConnection(options: ConnectionOptions): Connection {
  return Connection.lazy({ ...options, interceptors: guardedInterceptors() });
}

const guardedInterceptors = (): Interceptor[] => [
  makeGrpcRetryInterceptor(defaultGrpcRetryOptions()),
  closedChannelGuard,
];

export const CLOSED_CONNECTION_DETAILS = 'the Temporal connection was closed';

const closedChannelGuard: Interceptor = (options, nextCall) => {
  try {
    return new InterceptingCall(nextCall(options));
  } catch (error) {
    if (!isChannelShutDown(error)) throw error;
    return new InterceptingCall(cancelledCall());
  }
};

const isChannelShutDown = (error: unknown): boolean =>
  error instanceof Error && /channel has been shut down/i.test(error.message);

type NextCallOf = ConstructorParameters<typeof InterceptingCall>[0];

/** A call that never reaches the network and ends at once with CANCELLED. */
function cancelledCall(): NextCallOf {
  const noop = (): void => undefined;
  return {
    start(_metadata: Metadata, listener?: Partial<InterceptingListener>) {
      // After the caller has sent its message and half-closed, ending as gRPC ends a failed
      // unary call: an empty message first (the retry interceptor forwards it), then the status.
      setImmediate(() => {
        listener?.onReceiveMessage?.(null);
        listener?.onReceiveStatus?.({
          code: status.CANCELLED,
          details: CLOSED_CONNECTION_DETAILS,
          metadata: new Metadata(),
        });
      });
    },
    cancelWithStatus: noop,
    getPeer: () => 'closed',
    sendMessageWithContext: noop,
    sendMessage: noop,
    startRead: noop,
    halfClose: noop,
    getAuthContext: () => null,
  };
}
