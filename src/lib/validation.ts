import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { ValidationIssue } from './errors';
import type { TSchema } from '@sinclair/typebox';

export type InputSource = 'body' | 'query' | 'path' | 'header';

/** A compiled validator that answers FastAPI-compatible issues. */
export type InputValidator = (value: unknown) => { value: unknown; issues: ValidationIssue[] };

/**
 * Compiles request schemas. Bodies are strict JSON (no coercion); query and path values
 * arrive as text, so they are coerced (`"10"` → 10) the way FastAPI does.
 */
export function createValidatorFactory() {
  const strict = addFormats(new Ajv({ allErrors: true, useDefaults: true, strict: false }));
  const coercing = addFormats(
    new Ajv({ allErrors: true, useDefaults: true, coerceTypes: true, strict: false }),
  );
  return (schema: TSchema, source: InputSource): InputValidator => {
    const validate = (source === 'body' ? strict : coercing).compile(schema);
    const integers = source === 'body' ? [] : integerFields(schema);
    return (value) => {
      // Coercion reads `0x10`, `1e1` or `4.99` as numbers; an integer parameter is plain
      // decimal digits only, so those are refused before it runs.
      const malformed = integers.filter((name) => {
        const raw = (value as Record<string, unknown> | undefined)?.[name];
        return typeof raw === 'string' && !DECIMAL_INTEGER.test(raw);
      });
      const checked = malformed.length
        ? Object.fromEntries(
            Object.entries(value as Record<string, unknown>).filter(
              ([name]) => !malformed.includes(name),
            ),
          )
        : value;
      const issues: ValidationIssue[] = malformed.map((name) => ({
        loc: [source, name],
        msg: 'Input should be a valid integer, unable to parse string as an integer',
        type: 'int_parsing',
      }));
      if (!validate(checked)) issues.push(...toIssues(validate, source));
      return { value: checked, issues };
    };
  };
}

/** Plain decimal digits, optionally negative: the only text an integer parameter takes. */
const DECIMAL_INTEGER = /^-?[0-9]+$/;

/** Names of a query or path schema's integer-typed properties. */
function integerFields(schema: TSchema): string[] {
  const properties = (schema as { properties?: Record<string, { type?: unknown }> }).properties;
  return Object.entries(properties ?? {})
    .filter(([, property]) => property.type === 'integer')
    .map(([name]) => name);
}

function toIssues(validate: ValidateFunction, source: InputSource): ValidationIssue[] {
  const errors = validate.errors ?? [];
  // Errors inside a union branch only restate the union's own error.
  const unions = errors.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf');
  const kept = errors.filter(
    (e) =>
      e.keyword === 'anyOf' ||
      e.keyword === 'oneOf' ||
      !unions.some((u) => e.schemaPath.startsWith(`${u.schemaPath}/`)),
  );
  const seen = new Set<string>();
  const issues: ValidationIssue[] = [];
  for (const error of kept) {
    const issue = toIssue(error, source);
    const id = `${issue.loc.join('\u0000')}|${issue.type}`;
    if (seen.has(id)) continue;
    seen.add(id);
    issues.push(issue);
  }
  return issues;
}

function toIssue(error: ErrorObject, source: InputSource): ValidationIssue {
  const path = error.instancePath
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((part) => (/^\d+$/.test(part) ? Number(part) : part));
  const loc: (string | number)[] = [source, ...path];
  const p = error.params as Record<string, unknown>;
  const text = source === 'body';
  switch (error.keyword) {
    case 'required':
      return {
        loc: [...loc, String(p['missingProperty'])],
        msg: 'Field required',
        type: 'missing',
      };
    case 'additionalProperties':
      return {
        loc: [...loc, String(p['additionalProperty'])],
        msg: 'Extra inputs are not permitted',
        type: 'extra_forbidden',
      };
    case 'type':
      return { loc, ...typeIssue(String(p['type']), text) };
    case 'minLength':
      return issue(
        loc,
        `String should have at least ${num(p['limit'])} character${plural(p['limit'])}`,
        'string_too_short',
        { min_length: p['limit'] },
      );
    case 'maxLength':
      return issue(
        loc,
        `String should have at most ${num(p['limit'])} character${plural(p['limit'])}`,
        'string_too_long',
        { max_length: p['limit'] },
      );
    case 'minimum':
      return issue(
        loc,
        `Input should be greater than or equal to ${num(p['limit'])}`,
        'greater_than_equal',
        { ge: p['limit'] },
      );
    case 'maximum':
      return issue(
        loc,
        `Input should be less than or equal to ${num(p['limit'])}`,
        'less_than_equal',
        { le: p['limit'] },
      );
    case 'exclusiveMinimum':
      return issue(loc, `Input should be greater than ${num(p['limit'])}`, 'greater_than', {
        gt: p['limit'],
      });
    case 'exclusiveMaximum':
      return issue(loc, `Input should be less than ${num(p['limit'])}`, 'less_than', {
        lt: p['limit'],
      });
    case 'pattern':
      return issue(
        loc,
        `String should match pattern '${String(p['pattern'])}'`,
        'string_pattern_mismatch',
        { pattern: p['pattern'] },
      );
    case 'enum': {
      const allowed = (p['allowedValues'] as unknown[]).map((v) => `'${String(v)}'`);
      const expected =
        allowed.length > 1 ? `${allowed.slice(0, -1).join(', ')} or ${allowed.at(-1)}` : allowed[0];
      return issue(loc, `Input should be ${expected}`, 'enum', { expected });
    }
    case 'const':
      return issue(loc, `Input should be '${String(p['allowedValue'])}'`, 'literal_error');
    case 'minItems':
      return issue(
        loc,
        `List should have at least ${num(p['limit'])} item${plural(p['limit'])}`,
        'too_short',
        { min_length: p['limit'] },
      );
    case 'maxItems':
      return issue(
        loc,
        `List should have at most ${num(p['limit'])} item${plural(p['limit'])}`,
        'too_long',
        { max_length: p['limit'] },
      );
    case 'minProperties':
      return issue(
        loc,
        `Object should have at least ${num(p['limit'])} field${plural(p['limit'])}`,
        'too_short',
      );
    case 'maxProperties':
      return issue(
        loc,
        `Object should have at most ${num(p['limit'])} field${plural(p['limit'])}`,
        'too_long',
      );
    case 'format':
      return issue(loc, `value is not a valid ${String(p['format'])}`, 'value_error', {
        format: p['format'],
      });
    case 'anyOf':
    case 'oneOf':
      return issue(loc, 'Input does not match any of the allowed forms', 'union_error');
    default:
      return issue(loc, error.message ?? 'Invalid value', 'value_error');
  }
}

const issue = (
  loc: (string | number)[],
  msg: string,
  type: string,
  ctx?: Record<string, unknown>,
): ValidationIssue => (ctx ? { loc, msg, type, ctx } : { loc, msg, type });

const num = (value: unknown): string => String(value);
const plural = (value: unknown): string => (value === 1 ? '' : 's');

function typeIssue(expected: string, isJson: boolean): { msg: string; type: string } {
  const first = expected.split(',')[0];
  switch (first) {
    case 'string':
      return { msg: 'Input should be a valid string', type: 'string_type' };
    case 'integer':
      return isJson
        ? { msg: 'Input should be a valid integer', type: 'int_type' }
        : {
            msg: 'Input should be a valid integer, unable to parse string as an integer',
            type: 'int_parsing',
          };
    case 'number':
      return isJson
        ? { msg: 'Input should be a valid number', type: 'float_type' }
        : {
            msg: 'Input should be a valid number, unable to parse string as a number',
            type: 'float_parsing',
          };
    case 'boolean':
      return isJson
        ? { msg: 'Input should be a valid boolean', type: 'bool_type' }
        : {
            msg: 'Input should be a valid boolean, unable to interpret input',
            type: 'bool_parsing',
          };
    case 'object':
      return {
        msg: 'Input should be a valid dictionary or object to extract fields from',
        type: 'model_attributes_type',
      };
    case 'array':
      return { msg: 'Input should be a valid list', type: 'list_type' };
    case 'null':
      return { msg: 'Input should be None', type: 'none_required' };
    default:
      return { msg: `Input should be of type ${expected}`, type: 'type_error' };
  }
}
