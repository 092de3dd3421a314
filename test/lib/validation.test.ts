import * as schema from '../../src/lib/schema';
import type { ValidationIssue } from '../../src/lib/errors';
import { createValidatorFactory, listedIssues, MAX_LISTED_ISSUES } from '../../src/lib/validation';
import { idCursor } from '../../src/lib/cursor';

// The request validator on its own: FastAPI-shaped issues, strict bodies, coerced query
// values, and the refusals that keep a body storable (docs/conventions.md).

const compile = createValidatorFactory();
const body = schema.closedObject(
  { name: schema.text('Name.', 8), count: schema.count('How many.') },
  ['name'],
);

describe('bodies are strict JSON', () => {
  const validate = compile(body, 'body');

  it('accepts a valid body and fills nothing it was not asked to', () => {
    expect(validate({ name: 'ada', count: 2 })).toEqual({
      value: { name: 'ada', count: 2 },
      issues: [],
    });
  });

  it('names a missing field, a wrong type and an unknown field, each at its place', () => {
    const { issues } = validate({ count: '2', extra: true });
    expect(issues.map((i) => [i.loc.join('.'), i.type])).toEqual(
      expect.arrayContaining([
        ['body.name', 'missing'],
        ['body.count', 'int_type'],
        ['body.extra', 'extra_forbidden'],
      ]),
    );
  });

  it('refuses keys and nested arrays the store cannot hold', () => {
    const free = compile(schema.freeObject('Anything.'), 'body');
    const { issues } = free({ 'a.b': 1, $set: 2, list: [[1]] });
    expect(issues.map((i) => i.loc.join('.'))).toEqual(['body.a.b', 'body.$set', 'body.list.0']);
    expect(
      compile(schema.freeObject('Anything.'), 'body', { storedKeys: false })({ 'a.b': 1 }).issues,
    ).toEqual([]);
  });
});

describe('query values are coerced from text', () => {
  const validate = compile(schema.pagedQuery(idCursor('obj').schema), 'query');

  it('reads plain decimal integers and applies defaults', () => {
    expect(validate({ limit: '10' })).toEqual({ value: { limit: 10 }, issues: [] });
    expect(validate({})).toEqual({ value: { limit: 50 }, issues: [] });
  });

  it('refuses integers written any other way (hex, exponent, fraction)', () => {
    for (const raw of ['0x10', '1e1', '4.99']) {
      expect(validate({ limit: raw }).issues).toEqual([
        {
          loc: ['query', 'limit'],
          msg: 'Input should be a valid integer, unable to parse string as an integer',
          type: 'int_parsing',
        },
      ]);
    }
  });
});

describe('listedIssues', () => {
  const issues = (n: number): ValidationIssue[] =>
    Array.from({ length: n }, (_, i) => ({
      loc: ['body', `f${i}`],
      msg: 'bad',
      type: 'value_error',
    }));

  it('lists up to the cap as they are', () => {
    expect(listedIssues(issues(MAX_LISTED_ISSUES))).toHaveLength(MAX_LISTED_ISSUES);
  });

  it('lists the first ones and counts the rest in one closing issue', () => {
    const listed = listedIssues(issues(MAX_LISTED_ISSUES + 3));
    expect(listed).toHaveLength(MAX_LISTED_ISSUES + 1);
    expect(listed[MAX_LISTED_ISSUES]).toEqual({
      loc: ['body'],
      msg: `3 more problems not listed (${MAX_LISTED_ISSUES + 3} in all)`,
      type: 'too_many_errors',
      ctx: { total: MAX_LISTED_ISSUES + 3, listed: MAX_LISTED_ISSUES },
    });
  });
});
