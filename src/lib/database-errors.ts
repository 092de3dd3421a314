import {
  MongoNetworkError,
  MongoNotConnectedError,
  MongoServerSelectionError,
  MongoTopologyClosedError,
} from 'mongodb';

/**
 * True when the database could not be reached (refused, reset, timed out, no server to
 * select): the request may succeed once it is back, so callers answer 503, not 500.
 */
export const isDatabaseUnreachable = (error: unknown): boolean =>
  error instanceof MongoNetworkError ||
  error instanceof MongoServerSelectionError ||
  error instanceof MongoNotConnectedError ||
  error instanceof MongoTopologyClosedError;
