import { createResponseChecker } from '../../src/api/response-check';
import type { RouteDefinition } from '../../src/api/route';
import { envelope } from '../../src/api/routes/common';
import { count, text, view } from '../../src/lib/schema';

const route = {
  operationId: 'things.get',
  responses: {
    200: {
      description: 'A thing.',
      schema: envelope(view({ name: text('Name.'), size: count('Size.') }, ['name', 'size'])),
    },
  },
} as unknown as RouteDefinition;

describe('the response checker (VALIDATE_RESPONSES)', () => {
  it('passes a body that matches its schema and records the route', () => {
    const checked = new Set<string>();
    createResponseChecker(checked)(route, 200, { ok: true, payload: { name: 'a', size: 1 } });
    expect([...checked]).toEqual(['things.get']);
  });

  it('throws, naming the route and the field, when a body breaks its schema', () => {
    const checked = new Set<string>();
    const check = createResponseChecker(checked);
    expect(() => check(route, 200, { ok: true, payload: { name: 'a', size: -1 } })).toThrow(
      /things\.get 200.*\/payload\/size/,
    );
    expect(checked.size).toBe(0);
  });

  it('checks what the client parses (dates become strings)', () => {
    const check = createResponseChecker(new Set());
    const withDate = {
      ...route,
      responses: { 200: { description: 'x', schema: envelope(view({ at: text('At.') }, ['at'])) } },
    } as unknown as RouteDefinition;
    expect(() => check(withDate, 200, { ok: true, payload: { at: new Date(0) } })).not.toThrow();
  });

  it('ignores statuses without a schema', () => {
    expect(() => createResponseChecker(new Set())(route, 204, undefined)).not.toThrow();
  });
});
