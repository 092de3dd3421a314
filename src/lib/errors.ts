/**
 * Errors every layer below the api throws: they say what went wrong in domain words and
 * carry no HTTP status or header. The api's error middleware is the one place that maps
 * them to a status, headers and the documented error body (src/api/errors.ts).
 */

/** One entry of a FastAPI-compatible validation issue list (`detail` of a 422). */
export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
  ctx?: Record<string, unknown>;
}

/** What kind of failure this is; the api maps each kind to one status. */
export type AppErrorKind =
  | 'not_found'
  | 'conflict'
  | 'invalid_state'
  | 'forbidden'
  | 'unauthorized'
  | 'validation_error'
  | 'unavailable'
  | 'not_implemented'
  | HeavyWorkLimitKind;

/** The limits on heavy work (docs/governance.md); each names itself in the error code. */
export type HeavyWorkLimitKind = 'deployment_concurrency_exceeded' | 'cell_updates_quota_exceeded';

export interface AppErrorOptions {
  /** A longer explanation (string), or the issue list of an `Invalid`. */
  detail?: string | ValidationIssue[];
  /** Machine-readable fields the caller can act on (merged into the error body). */
  extra?: Record<string, unknown>;
  /** When trying again may succeed, and how soon. */
  retryAfterSeconds?: number;
}

/** A failure the caller can understand and act on. */
export class AppError extends Error {
  constructor(
    readonly kind: AppErrorKind,
    message: string,
    readonly options: AppErrorOptions = {},
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** A class of `AppError` of one kind, so each kind reads as a name: `new NotFound(...)`. */
const kindOf = (kind: AppErrorKind) =>
  class extends AppError {
    constructor(message: string, options?: AppErrorOptions) {
      super(kind, message, options);
    }
  };

/** The thing named does not exist (or the caller may not know that it does). */
export class NotFound extends kindOf('not_found') {}
/** The request contradicts what is stored (duplicate, stale version, claim held). */
export class Conflict extends kindOf('conflict') {}
/** The resource is not in a state that allows this transition. */
export class InvalidState extends kindOf('invalid_state') {}
/** The caller is known but may not do this. */
export class Forbidden extends kindOf('forbidden') {}
/** The caller could not be identified. */
export class Unauthorized extends kindOf('unauthorized') {}
/** A backend this needs is not answering; trying again later may succeed. */
export class Unavailable extends kindOf('unavailable') {}
/** A capability that is planned but not built. */
export class NotImplemented extends kindOf('not_implemented') {}

/** A limit on heavy work is reached: the kind names the limit, `extra` its scope and numbers. */
export class LimitExceeded extends AppError {
  constructor(kind: HeavyWorkLimitKind, message: string, options?: AppErrorOptions) {
    super(kind, message, options);
  }
}

/** `what not found`, the common case. */
export const notFound = (what: string): NotFound => new NotFound(`${what} not found`);

/** What a lookup found, or `NotFound` naming it: `await found(repo.findById(id), "task …")`. */
export async function found<T>(lookup: Promise<T | null | undefined>, what: string): Promise<T> {
  const value = await lookup;
  if (value === null || value === undefined) throw notFound(what);
  return value;
}

/** The input breaks a rule; each issue names where and why. */
export class Invalid extends AppError {
  constructor(
    readonly issues: ValidationIssue[],
    options: Omit<AppErrorOptions, 'detail'> = {},
  ) {
    const first = issues[0];
    const where = first ? `${first.loc.join('.')}: ${first.msg}` : 'invalid request';
    super('validation_error', `request validation failed (${where})`, {
      ...options,
      detail: issues,
    });
  }
}

/** One issue at `loc`, the common case of `Invalid`. */
export const invalidAt = (
  loc: (string | number)[],
  msg: string,
  type = 'value_error',
  ctx?: Record<string, unknown>,
): Invalid => new Invalid([ctx ? { loc, msg, type, ctx } : { loc, msg, type }]);

/**
 * A record that grants or limits authority failed its seal check (it was changed, inserted
 * or sealed by a key this service does not accept, outside the service): it is refused, not
 * repaired. `collection` and `recordId` name it; an operator restores it (docs/approvals.md).
 */
export class RecordIntegrityError extends AppError {
  constructor(
    readonly collection: string,
    readonly recordId: string,
    readonly problem: string,
    what: string,
  ) {
    super(
      'forbidden',
      `${what} failed its integrity check (${problem}); an operator must restore it`,
      {
        extra: { integrity: { collection, record_id: recordId } },
      },
    );
  }
}
