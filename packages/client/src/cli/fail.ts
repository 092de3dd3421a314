import { GovernedApiError, ServiceUnreachableError } from '../errors';

/** A failure of the command line itself (no key, bad flag value): its message is enough. */
export class CliError extends Error {
  constructor(
    message: string,
    /** The process's exit code: 1 for a failure, 2 for a usage mistake. */
    readonly exitCode = 1,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** An action or deployment that ended other than as hoped (rejected, failed, …): exit 3. */
export class UnwantedEndError extends CliError {
  constructor(message: string) {
    super(message, 3);
  }
}

/**
 * The service's refusal, relayed as it answered, with what to do about it in `gr` terms
 * (the service's message speaks of routes; the CLI user needs a command).
 */
export class HintedApiError extends Error {
  constructor(
    readonly refusal: GovernedApiError,
    readonly hint: string,
  ) {
    super(refusal.message);
    this.name = 'HintedApiError';
  }
}

/** What a failure looks like on stderr, as a line and as JSON (`--json`). */
export function describeFailure(error: unknown): { line: string; json: object; exitCode: number } {
  if (error instanceof HintedApiError) {
    const relayed = describeFailure(error.refusal) as { line: string; json: { error: object } };
    return {
      line: `${relayed.line}\n  ${error.hint}`,
      json: { error: { ...relayed.json.error, hint: error.hint } },
      exitCode: 1,
    };
  }
  if (error instanceof ServiceUnreachableError) {
    return {
      line: error.message,
      json: { error: { code: 'unreachable', message: error.message, url: error.url } },
      exitCode: 1,
    };
  }
  if (error instanceof GovernedApiError && !error.body) {
    // Not the service's envelope: the message says what answered, with its status.
    return {
      line: error.message,
      json: { error: { status: error.status, code: error.code, message: error.message } },
      exitCode: 1,
    };
  }
  if (error instanceof GovernedApiError) {
    const where = [
      error.code,
      `HTTP ${error.status}`,
      error.requestId && `request ${error.requestId}`,
    ]
      .filter(Boolean)
      .join(', ');
    const detail = detailLines(error.body?.detail, error.message);
    return {
      line: `${error.message} (${where})${detail}`,
      json: {
        error: {
          status: error.status,
          code: error.code,
          message: error.message,
          request_id: error.requestId ?? null,
          detail: error.body?.detail ?? null,
        },
      },
      exitCode: 1,
    };
  }
  if (error instanceof CliError) {
    return {
      line: error.message,
      json: { error: { code: 'cli', message: error.message } },
      exitCode: error.exitCode,
    };
  }
  // Network failures: fetch says "fetch failed" and puts the reason in `cause`.
  const cause = (error as { cause?: { message?: string } }).cause?.message;
  const message = error instanceof Error ? error.message : String(error);
  const line = cause ? `${message}: ${cause}` : message;
  return { line, json: { error: { code: 'error', message: line } }, exitCode: 1 };
}

/** The envelope's `detail` as indented lines: a 422's problems one a line, a sentence as is. */
function detailLines(detail: unknown, message: string): string {
  if (Array.isArray(detail)) {
    return detail
      .map(
        (issue: { loc?: unknown[]; msg?: string }) =>
          `\n  ${(issue.loc ?? []).join('.')}: ${issue.msg ?? JSON.stringify(issue)}`,
      )
      .join('');
  }
  return typeof detail === 'string' && detail !== message ? `\n  ${detail}` : '';
}
