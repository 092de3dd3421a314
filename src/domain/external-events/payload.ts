import { type ValidationIssue } from '../../lib/errors';

import {
  MAX_FIELD_NAME,
  MAX_PAYLOAD_BYTES,
  MAX_PAYLOAD_DEPTH,
  MAX_PAYLOAD_FIELDS,
} from './schemas';

export { MAX_FIELD_NAME, MAX_PAYLOAD_BYTES, MAX_PAYLOAD_DEPTH, MAX_PAYLOAD_FIELDS };

type Loc = (string | number)[];

/**
 * What the schema cannot say about a payload: its serialized size, the number and names of
 * its top-level fields, and keys the document store refuses (`.` inside, `$` in front, at
 * any depth). Returns FastAPI-style issues located under `loc`; empty when it is fine.
 */
export function payloadIssues(payload: Record<string, unknown>, loc: Loc): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  // Depth first: it bounds the recursion of everything after it (serializing included).
  walk(payload, loc, 1, issues);
  if (issues.some((issue) => issue.ctx?.['max_depth'] !== undefined)) return issues;
  const bytes = Buffer.byteLength(JSON.stringify(payload), 'utf8');
  if (bytes > MAX_PAYLOAD_BYTES) {
    issues.unshift({
      loc,
      msg: `Payload should be at most ${MAX_PAYLOAD_BYTES} bytes of JSON, got ${bytes}`,
      type: 'too_long',
      ctx: { max_bytes: MAX_PAYLOAD_BYTES, bytes },
    });
  }
  const names = Object.keys(payload);
  if (names.length > MAX_PAYLOAD_FIELDS) {
    issues.push({
      loc,
      msg: `Object should have at most ${MAX_PAYLOAD_FIELDS} fields`,
      type: 'too_long',
      ctx: { max_length: MAX_PAYLOAD_FIELDS },
    });
  }
  for (const name of names) {
    if (name.length === 0 || name.length > MAX_FIELD_NAME || name === '__proto__') {
      issues.push({
        loc: [...loc, name],
        msg: `Field names should be 1..${MAX_FIELD_NAME} characters and not __proto__`,
        type: 'value_error',
      });
    }
  }
  return issues.slice(0, 32);
}

function walk(value: unknown, loc: Loc, depth: number, issues: ValidationIssue[]): void {
  if (value === null || typeof value !== 'object' || issues.length >= 32) return;
  if (depth > MAX_PAYLOAD_DEPTH) {
    issues.push({
      loc,
      msg: `Payload should nest at most ${MAX_PAYLOAD_DEPTH} levels`,
      type: 'value_error',
      ctx: { max_depth: MAX_PAYLOAD_DEPTH },
    });
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((item, index) => walk(item, [...loc, index], depth + 1, issues));
    return;
  }
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    if (key.includes('.') || key.startsWith('$')) {
      issues.push({
        loc: [...loc, key],
        msg: "Keys should not contain '.' nor start with '$'",
        type: 'value_error',
      });
    }
    walk(item, [...loc, key], depth + 1, issues);
  }
}
