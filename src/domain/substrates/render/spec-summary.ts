/** The spec parameters a report shows, as display text. */
export interface SpecSummary {
  scaffold: string | null;
  rule: string | null;
  ticks: string | null;
  /** `seed 42, density 0.3` or `pattern glider`, whichever the spec starts from. */
  start: string | null;
}

/**
 * Reads the parameters from `spec.params` or, failing that, from the spec itself, so the
 * renderers do not depend on one spec layout; anything missing is null.
 */
export function summarizeSpec(spec: Record<string, unknown>): SpecSummary {
  const params = isRecord(spec['params']) ? spec['params'] : {};
  const read = (key: string): string | null => {
    const value = params[key] ?? spec[key];
    if (value === undefined || value === null) return null;
    return typeof value === 'string' ? value : JSON.stringify(value);
  };
  const seed = read('seed');
  const density = read('density');
  const pattern = read('pattern');
  const start =
    pattern !== null
      ? `pattern ${pattern}`
      : seed !== null
        ? `seed ${seed}${density !== null ? `, density ${density}` : ''}`
        : null;
  return { scaffold: read('scaffold'), rule: read('rule'), ticks: read('ticks'), start };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
