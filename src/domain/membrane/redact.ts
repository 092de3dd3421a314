/**
 * Redaction at the membrane (docs/membrane.md): nothing secret crosses it. Applied to
 * every payload before it is rendered, whatever its source.
 */

/** Field names whose values never cross, at any depth. */
const SENSITIVE_FIELD = /secret|token|password|api[-_]?key|authorization/i;
/** Our API keys (`grk_<key id>_<secret>`), anywhere in a string. */
const API_KEY = /grk_[A-Za-z0-9]+_[A-Za-z0-9]+/g;
/** E-mail addresses, anywhere in a string. */
const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g;
/** Deeper than this, a value is cut (the renderers recurse). */
const MAX_DEPTH = 32;

export interface Redaction {
  /** Where, as a JSON path (`$.items[2].owner`). */
  path: string;
  reason: 'sensitive_field' | 'api_key' | 'email' | 'sensitive_key' | 'too_deep';
}

const scrub = (text: string, path: string, redactions: Redaction[]): string => {
  let out = text.replace(API_KEY, () => {
    redactions.push({ path, reason: 'api_key' });
    return '[redacted api key]';
  });
  out = out.replace(EMAIL, () => {
    redactions.push({ path, reason: 'email' });
    return '[redacted e-mail]';
  });
  return out;
};

function walk(value: unknown, path: string, depth: number, redactions: Redaction[]): unknown {
  if (typeof value === 'string') return scrub(value, path, redactions);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) {
    redactions.push({ path, reason: 'too_deep' });
    return '[cut: too deep]';
  }
  if (Array.isArray(value)) {
    return value.map((item, index) => walk(item, `${path}[${index}]`, depth + 1, redactions));
  }
  const out: Record<string, unknown> = {};
  let hidden = 0;
  for (const [rawKey, item] of Object.entries(value as Record<string, unknown>)) {
    const keyPath = `${path}.${rawKey}`;
    let key = scrub(rawKey, `${path}.<key>`, redactions);
    if (key !== rawKey) {
      hidden += 1;
      key = `[redacted key ${hidden}]`;
      redactions.push({ path: `${path}.<key>`, reason: 'sensitive_key' });
    }
    if (SENSITIVE_FIELD.test(rawKey)) {
      redactions.push({ path: keyPath, reason: 'sensitive_field' });
      out[key] = '[redacted]';
      continue;
    }
    out[key] = walk(item, keyPath, depth + 1, redactions);
  }
  return out;
}

/** The payload with every secret, API key and e-mail address replaced, and where each was. */
export function redact(value: unknown): { value: unknown; redactions: Redaction[] } {
  const redactions: Redaction[] = [];
  return { value: walk(value, '$', 0, redactions), redactions };
}
