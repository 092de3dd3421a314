import { status } from '@grpc/grpc-js';
import { isGrpcServiceError } from '@temporalio/client';

// Not reached, or not in time: the same call may succeed once the server is back.
const UNREACHABLE = new Set<number>([status.UNAVAILABLE, status.DEADLINE_EXCEEDED]);

/**
 * True when a Temporal call failed because the server could not be reached (refused,
 * dropped, restarting) rather than because of what it answered: callers answer 503, not
 * 500. The client wraps the gRPC failure in a `ServiceError`, so its causes are read too.
 */
export function isTemporalUnreachable(error: unknown): boolean {
  for (let cause = error, depth = 0; cause !== undefined && depth < 4; depth += 1) {
    if (isGrpcServiceError(cause)) return UNREACHABLE.has(cause.code);
    cause = cause instanceof Error ? cause.cause : undefined;
  }
  return false;
}
