import {
  AppError,
  Conflict,
  Invalid,
  NotFound,
  Unavailable,
  found,
  invalidAt,
  notFound,
} from '../../src/lib/errors';
import { MongoNetworkError, MongoNotConnectedError } from 'mongodb';
import { Metadata, status } from '@grpc/grpc-js';
import { ServiceError } from '@temporalio/client';
import { ApiError, toApiError } from '../../src/api/errors';

describe('domain errors', () => {
  it('carry a kind and a name, never a status', () => {
    const error = new Conflict('taken');
    expect(error).toBeInstanceOf(AppError);
    expect(error.kind).toBe('conflict');
    expect(error.name).toBe('Conflict');
    expect(error).not.toHaveProperty('status');
    expect(notFound('task tsk_1')).toMatchObject({
      kind: 'not_found',
      message: 'task tsk_1 not found',
    });
  });

  it('found passes a record through and names what is missing', async () => {
    const task = { _id: 'tsk_1' };
    await expect(found(Promise.resolve(task), 'task tsk_1')).resolves.toBe(task);
    await expect(found(Promise.resolve(null), 'task tsk_2')).rejects.toMatchObject({
      kind: 'not_found',
      message: 'task tsk_2 not found',
    });
    await expect(found(Promise.resolve(undefined), 'task tsk_3')).rejects.toBeInstanceOf(NotFound);
    // A found value that is merely falsy is still found.
    await expect(found(Promise.resolve(0), 'count')).resolves.toBe(0);
  });

  it('Invalid names the first issue and keeps the list', () => {
    const error = invalidAt(['body', 'title'], 'Field required', 'missing');
    expect(error).toBeInstanceOf(Invalid);
    expect(error.message).toBe('request validation failed (body.title: Field required)');
    expect(error.issues).toEqual([
      { loc: ['body', 'title'], msg: 'Field required', type: 'missing' },
    ]);
  });
});

describe('the api mapping', () => {
  it('maps each kind to its status and headers', () => {
    expect(toApiError(new NotFound('x')).status).toBe(404);
    expect(toApiError(new Conflict('x')).status).toBe(409);
    const unavailable = toApiError(new Unavailable('down', { retryAfterSeconds: 1.2 }));
    expect(unavailable.status).toBe(503);
    expect(unavailable.options.headers).toEqual({ 'Retry-After': '2' });
    const invalid = toApiError(invalidAt(['query', 'cursor'], 'Invalid cursor'));
    expect(invalid.status).toBe(422);
    expect(invalid.options.detail).toEqual([
      { loc: ['query', 'cursor'], msg: 'Invalid cursor', type: 'value_error' },
    ]);
  });

  it('answers 503 with Retry-After when the database is unreachable (found by npm run chaos)', () => {
    for (const error of [
      new MongoNetworkError('connect ECONNREFUSED 127.0.0.1:27017'),
      new MongoNotConnectedError('client is not connected'),
    ]) {
      const mapped = toApiError(error);
      expect(mapped.status).toBe(503);
      expect(mapped.code).toBe('unavailable');
      expect(mapped.options.headers).toEqual({ 'Retry-After': '5' });
      expect(mapped.message).not.toContain('ECONNREFUSED');
    }
  });

  it('gives every 503 a Retry-After, also when the domain named no wait (found by the chaos run in CI)', () => {
    const mapped = toApiError(new Unavailable('the workflow service did not take the decision'));
    expect(mapped.status).toBe(503);
    expect(mapped.options.headers).toEqual({ 'Retry-After': '5' });
  });

  it('answers 503 with Retry-After when Temporal is unreachable, not 500', () => {
    const grpcFailure = (code: status, details: string) =>
      Object.assign(new Error(`${code} ${status[code]}: ${details}`), {
        code,
        details,
        metadata: new Metadata(),
      });
    for (const error of [
      grpcFailure(status.UNAVAILABLE, 'No connection established'),
      new ServiceError('Failed to query workflow', {
        cause: grpcFailure(status.UNAVAILABLE, 'Connection dropped'),
      }),
      new ServiceError('Failed to describe workflow', {
        cause: grpcFailure(status.DEADLINE_EXCEEDED, 'Deadline exceeded'),
      }),
    ]) {
      const mapped = toApiError(error);
      expect(mapped.status).toBe(503);
      expect(mapped.code).toBe('unavailable');
      expect(mapped.options.headers).toEqual({ 'Retry-After': '5' });
      expect(mapped.message).not.toContain('Connection dropped');
    }
    // A Temporal answer that is not about reaching it stays what it is.
    const notFound = new ServiceError('Workflow not found', {
      cause: grpcFailure(status.NOT_FOUND, 'workflow not found'),
    });
    expect(toApiError(notFound).code).toBe('internal');
  });

  it('answers internal, with no message of its own, for anything else', () => {
    const mapped = toApiError(new Error('secret detail'));
    expect(mapped).toBeInstanceOf(ApiError);
    expect(mapped.code).toBe('internal');
    expect(mapped.message).toBe('internal server error');
  });
});
