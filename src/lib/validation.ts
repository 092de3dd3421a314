import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { ValidationIssue } from './errors';
import type { TSchema } from '@sinclair/typebox';
import { VALUE_SCHEMAS, isValueSchema } from './schema';

export type InputSource = 'body' | 'query' | 'path' | 'header';

/** A compiled validator that answers FastAPI-compatible issues. */
export type InputValidator = (value: unknown) => { value: unknown; issues: ValidationIssue[] };

/**
 * Compiles request schemas. Bodies are strict JSON (no coercion); query and path values
 * arrive as text, so they are coerced (`"10"` → 10) the way FastAPI does.
 */
export function createValidatorFactory() {
  // `verbose`: an error names the schema it comes from, so those of the value components
  // are told apart (`isValueSchema`).
  const strict = addFormats(
    new Ajv({ allErrors: true, useDefaults: true, strict: false, verbose: true }),
  );
  const coercing = addFormats(
    new Ajv({
      allErrors: true,
      useDefaults: true,
      coerceTypes: true,
      strict: false,
      verbose: true,
    }),
  );
  /** `storedKeys` (bodies, default true): refuse keys the store cannot hold. */
  return (
    schema: TSchema,
    source: InputSource,
    options: { storedKeys?: boolean } = {},
  ): InputValidator => {
    // The value components free-form fields refer to (`VALUE_SCHEMAS`) travel with the
    // schema, where the document has them: `#/components/schemas/…`.
    const validate = (source === 'body' ? strict : coercing).compile({
      ...schema,
      components: { schemas: VALUE_SCHEMAS },
    });
    const ruleAt = fieldRules(schema);
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
      // Appended one by one: a spread of 100,000 issues overflows the call stack.
      if (!validate(checked)) {
        for (const issue of toIssues(validate, source, ruleAt)) issues.push(issue);
      }
      if (source === 'body' && options.storedKeys !== false) {
        // A key already refused (an extra field of a closed object) is not named twice.
        const named = new Set(issues.map((i) => i.loc.join('\u0000')));
        for (const issue of unstorableParts(checked, [source])) {
          if (!named.has(issue.loc.join('\u0000'))) issues.push(issue);
        }
      }
      return { value: checked, issues };
    };
  };
}

/**
 * Problems a 422 lists at most. The rest are counted in one closing issue
 * (`too_many_errors`), so a body of 100,000 bad fields answers a few kilobytes, not
 * megabytes (found by fuzzing: 200 KB in, 9.7 MB out).
 */
export const MAX_LISTED_ISSUES = 50;

/** The first `MAX_LISTED_ISSUES` issues, and a count of the others when there are more. */
export function listedIssues(issues: ValidationIssue[]): ValidationIssue[] {
  if (issues.length <= MAX_LISTED_ISSUES) return issues;
  const unlisted = issues.length - MAX_LISTED_ISSUES;
  return [
    ...issues.slice(0, MAX_LISTED_ISSUES),
    {
      loc: [issues[MAX_LISTED_ISSUES].loc[0] ?? 'body'],
      msg: `${unlisted} more problem${unlisted === 1 ? '' : 's'} not listed (${issues.length} in all)`,
      type: 'too_many_errors',
      ctx: { total: issues.length, listed: MAX_LISTED_ISSUES },
    },
  ];
}

/**
 * What the store cannot hold, wherever it is in a body: MongoDB (and FerretDB) refuse a field
 * name containing `.` or NUL or starting with `$`, and FerretDB v1 refuses an array directly
 * inside an array (`[[1, 2]]`; we keep to what both stores do). A body is stored as sent
 * (action parameters, event payloads, command arguments), so either is refused here (422)
 * rather than failing when it is written (found by fuzzing: a proposal whose parameters held
 * `"a.b"` left its workflow retrying the write forever; an event payload holding `[[1]]` was
 * a 500).
 */
const unstorableKey = (key: string): boolean =>
  key.startsWith('$') || key.includes('.') || key.includes('\u0000');

function unstorableParts(value: unknown, loc: (string | number)[]): ValidationIssue[] {
  if (Array.isArray(value)) {
    return value.flatMap((item, i) =>
      Array.isArray(item)
        ? [
            {
              loc: [...loc, i],
              msg: 'An array cannot hold an array directly (wrap it in an object)',
              type: 'value_error',
            },
          ]
        : unstorableParts(item, [...loc, i]),
    );
  }
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value as Record<string, unknown>).flatMap(([key, item]) =>
    unstorableKey(key)
      ? [
          {
            loc: [...loc, key],
            msg: 'Key should not contain "." or NUL, nor start with "$"',
            type: 'value_error',
          },
        ]
      : unstorableParts(item, [...loc, key]),
  );
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

/** A cross-field rule of a schema (`FieldRule` in schema.ts), by its ajv schema path. */
interface RuleSchema {
  /** Absent (a `shapedWhen` rule): its errors are worded as usual, only `if` is dropped. */
  description?: string;
  not?: { required?: string[] };
  if?: unknown;
  oneOf?: unknown;
}

/**
 * The `allOf` rules of a schema and of its nested objects, by the schema path ajv reports
 * (`#/properties/params/allOf/0`), found once per compiled schema.
 */
function fieldRules(schema: unknown, path = '#', found = new Map<string, RuleSchema>()) {
  if (typeof schema !== 'object' || schema === null) return found;
  const node = schema as Record<string, unknown>;
  const allOf = Array.isArray(node['allOf']) ? (node['allOf'] as Record<string, unknown>[]) : [];
  allOf.forEach((rule, i) => {
    const isRule =
      (typeof rule['description'] === 'string' || typeof rule['$comment'] === 'string') &&
      (rule['not'] !== undefined || rule['if'] !== undefined || rule['oneOf'] !== undefined);
    if (isRule) found.set(`${path}/allOf/${i}`, rule);
  });
  const properties = node['properties'];
  if (typeof properties === 'object' && properties !== null) {
    for (const [name, inner] of Object.entries(properties)) {
      fieldRules(inner, `${path}/properties/${name}`, found);
    }
  }
  for (const key of ['anyOf', 'oneOf'] as const) {
    const options = node[key];
    if (Array.isArray(options))
      options.forEach((o, i) => fieldRules(o, `${path}/${key}/${i}`, found));
  }
  return found;
}

/**
 * The issue of an error that breaks a cross-field rule, worded by the rule's description:
 * `not` names the second field it forbids, `oneOf` the object, `then` what in it failed.
 * Undefined for any other error (and for a rule's `if` error, which restates its `then`).
 */
function ruleIssue(
  error: ErrorObject,
  loc: (string | number)[],
  ruleAt: Map<string, RuleSchema>,
): ValidationIssue | null | undefined {
  const match = /^(.*\/allOf\/\d+)\/(not|oneOf|if|then)(\/.*)?$/.exec(error.schemaPath);
  const rule = match ? ruleAt.get(match[1]) : undefined;
  if (!match || !rule) return undefined;
  if (match[2] === 'if') return null;
  if (rule.description === undefined) return undefined;
  if (match[2] === 'not') {
    const names = rule.not?.required ?? [];
    const at = names.length > 1 ? [...loc, names[names.length - 1]] : loc;
    return { loc: at, msg: rule.description, type: 'value_error' };
  }
  if (match[2] === 'then') {
    // What the rule requires is named with the rule: a missing field at its place, any
    // other error (a value, a type, a length) where it is.
    if (error.keyword !== 'required') return { loc, msg: rule.description, type: 'value_error' };
    const missing = (error.params as { missingProperty?: string }).missingProperty;
    return { loc: [...loc, String(missing)], msg: rule.description, type: 'value_error' };
  }
  return { loc, msg: rule.description, type: 'value_error' };
}

function toIssues(
  validate: ValidateFunction,
  source: InputSource,
  ruleAt: Map<string, RuleSchema>,
): ValidationIssue[] {
  // The value components and key patterns state what the body layer and `unstorableParts`
  // refuse with their own 422s: their errors would only restate those.
  const errors = (validate.errors ?? []).filter(
    (e) =>
      !isValueSchema(e.parentSchema) &&
      e.keyword !== 'propertyNames' &&
      !e.schemaPath.includes('/propertyNames/'),
  );
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
    const ruled = ruleAt.size ? ruleIssue(error, locOf(error, source), ruleAt) : undefined;
    if (ruled === null) continue;
    const issue = ruled ?? toIssue(error, source);
    const id = `${issue.loc.join('\u0000')}|${issue.type}`;
    if (seen.has(id)) continue;
    seen.add(id);
    issues.push(issue);
  }
  return issues;
}

/** Where an error is: its source and the path of its instance. */
function locOf(error: ErrorObject, source: InputSource): (string | number)[] {
  const path = error.instancePath
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((part) => (/^\d+$/.test(part) ? Number(part) : part));
  return [source, ...path];
}

function toIssue(error: ErrorObject, source: InputSource): ValidationIssue {
  const loc = locOf(error, source);
  const p = error.params as Record<string, unknown>;
  const text = source === 'body';
  const bound = BOUND_ISSUES.get(error.keyword);
  if (bound) {
    const [template, type, ctxKey] = bound;
    const msg = template.replace('{n}', String(p['limit'])).replace('{s}', plural(p['limit']));
    return issue(loc, msg, type, ctxKey ? { [ctxKey]: p['limit'] } : undefined);
  }
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

/**
 * Size and range keywords, worded as pydantic words them: the message (`{n}` the limit, `{s}`
 * a plural ending), the issue type and the key the limit is reported under.
 */
const BOUND_ISSUES = new Map<string, readonly [string, string, string?]>(
  Object.entries({
    minLength: ['String should have at least {n} character{s}', 'string_too_short', 'min_length'],
    maxLength: ['String should have at most {n} character{s}', 'string_too_long', 'max_length'],
    minimum: ['Input should be greater than or equal to {n}', 'greater_than_equal', 'ge'],
    maximum: ['Input should be less than or equal to {n}', 'less_than_equal', 'le'],
    exclusiveMinimum: ['Input should be greater than {n}', 'greater_than', 'gt'],
    exclusiveMaximum: ['Input should be less than {n}', 'less_than', 'lt'],
    minItems: ['List should have at least {n} item{s}', 'too_short', 'min_length'],
    maxItems: ['List should have at most {n} item{s}', 'too_long', 'max_length'],
    minProperties: ['Object should have at least {n} field{s}', 'too_short'],
    maxProperties: ['Object should have at most {n} field{s}', 'too_long'],
  }),
);

const issue = (
  loc: (string | number)[],
  msg: string,
  type: string,
  ctx?: Record<string, unknown>,
): ValidationIssue => (ctx ? { loc, msg, type, ctx } : { loc, msg, type });

const plural = (value: unknown): string => (value === 1 ? '' : 's');

/** Scalar types: the noun, the JSON issue type, the parsing issue type and its wording. */
const SCALAR_TYPE_ISSUES = {
  integer: ['integer', 'int_type', 'int_parsing', 'unable to parse string as an integer'],
  number: ['number', 'float_type', 'float_parsing', 'unable to parse string as a number'],
  boolean: ['boolean', 'bool_type', 'bool_parsing', 'unable to interpret input'],
} as const;

function typeIssue(expected: string, isJson: boolean): { msg: string; type: string } {
  const first = expected.split(',')[0];
  switch (first) {
    case 'string':
      return { msg: 'Input should be a valid string', type: 'string_type' };
    case 'integer':
    case 'number':
    case 'boolean': {
      const [noun, jsonType, parsing, unparsable] = SCALAR_TYPE_ISSUES[first];
      // Query and path values arrive as strings: pydantic words those as parsing failures.
      return isJson
        ? { msg: `Input should be a valid ${noun}`, type: jsonType }
        : { msg: `Input should be a valid ${noun}, ${unparsable}`, type: parsing };
    }
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
