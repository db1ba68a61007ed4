import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { FunctionErrorCode } from '@storefront/domain/errors.ts';
import { createFunctionsClient, FunctionsError } from '@storefront/sdk/callable.ts';
import { startTestApp, type TestApp } from '../../test/app.ts';
import { AppError } from '../errors.ts';
import { defineTestFunction, type CallableFunction } from './registry.ts';

/** Test-only functions: one that throws each code, and a few with inputs and access rules. */
const CODES: [FunctionErrorCode, number, string][] = [
  ['invalid-argument', 400, 'INVALID_ARGUMENT'],
  ['failed-precondition', 400, 'FAILED_PRECONDITION'],
  ['out-of-range', 400, 'OUT_OF_RANGE'],
  ['unauthenticated', 401, 'UNAUTHENTICATED'],
  ['permission-denied', 403, 'PERMISSION_DENIED'],
  ['not-found', 404, 'NOT_FOUND'],
  ['already-exists', 409, 'ALREADY_EXISTS'],
  ['aborted', 409, 'ABORTED'],
  ['resource-exhausted', 429, 'RESOURCE_EXHAUSTED'],
  ['cancelled', 499, 'CANCELLED'],
  ['unimplemented', 501, 'UNIMPLEMENTED'],
  ['unavailable', 503, 'UNAVAILABLE'],
  ['deadline-exceeded', 504, 'DEADLINE_EXCEEDED'],
  ['internal', 500, 'INTERNAL'],
  ['unknown', 500, 'UNKNOWN'],
  ['data-loss', 500, 'DATA_LOSS'],
];

const SECRET = 'connection to 10.0.0.7 failed: password "hunter2"';

const testFunctions: CallableFunction[] = [
  defineTestFunction({
    name: 'throwCode',
    access: 'public',
    input: z.object({ code: z.string() }),
    handler: async ({ code }) => {
      throw new AppError(code as FunctionErrorCode, `Thrown with ${code}.`);
    },
  }),
  defineTestFunction({
    name: 'crash',
    access: 'public',
    input: z.unknown(),
    handler: async () => {
      throw new Error(SECRET);
    },
  }),
  defineTestFunction({
    name: 'echo',
    access: 'public',
    input: z.object({ name: z.string().min(1), qty: z.number().int().min(1) }).strict(),
    handler: async (input) => ({ ok: true, input }),
  }),
  defineTestFunction({
    name: 'nothing',
    access: 'public',
    input: z.unknown(),
    handler: async () => undefined,
  }),
  defineTestFunction({ name: 'mine', access: 'signed-in', input: z.unknown(), handler: async () => ({ ok: true }) }),
  defineTestFunction({ name: 'adminOnly', access: 'admin', input: z.unknown(), handler: async () => ({ ok: true }) }),
  defineTestFunction({
    name: 'oldEcho',
    access: 'public',
    input: z.object({ n: z.number() }).strict(),
    deprecated: { since: '1.1.0', on: '2026-12-01', removeAfter: '2027-06-01', instead: 'Call echo.' },
    handler: async () => ({ ok: true }),
  }),
];

let shop: TestApp;
let app: FastifyInstance;

beforeAll(async () => {
  shop = await startTestApp({ build: { functions: testFunctions } });
  app = shop.app;
});

afterAll(async () => {
  await shop?.close();
});

function post(name: string, payload: unknown, headers: Record<string, string> = {}) {
  return app.inject({
    method: 'POST',
    url: `/fn/${name}`,
    headers: { 'content-type': 'application/json', ...headers },
    payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
  });
}

describe('POST /fn/<name> of a deprecated function (decision 048)', () => {
  it('still answers, with Deprecation (RFC 9745) and Sunset (RFC 8594) headers, on errors too', async () => {
    const ok = await post('oldEcho', { data: { n: 1 } });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({ data: { ok: true } });
    expect(ok.headers.deprecation).toBe(`@${Date.UTC(2026, 11, 1) / 1000}`);
    expect(ok.headers.sunset).toBe('Tue, 01 Jun 2027 00:00:00 GMT');
    const refused = await post('oldEcho', { data: { n: 'one' } });
    expect(refused.statusCode).toBe(400);
    expect(refused.headers.sunset).toBe('Tue, 01 Jun 2027 00:00:00 GMT');
    expect((await post('echo', { data: { name: 'a', qty: 1 } })).headers.deprecation).toBeUndefined();
  });
});

describe("POST /fn/<name>: thrown codes become the spec table's HTTP status", () => {
  it.each(CODES)('%s -> HTTP %i, status %s', async (code, httpStatus, statusName) => {
    const response = await post('throwCode', { data: { code } });
    expect(response.statusCode).toBe(httpStatus);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.json()).toEqual({ error: { status: statusName, message: `Thrown with ${code}.`, requestId: expect.any(String) } });
  });

  it('a plain Error -> 500 INTERNAL with a generic message, never the original text or a stack', async () => {
    const response = await post('crash', { data: {} });
    expect(response.statusCode).toBe(500);
    expect(response.json()).toEqual({ error: { status: 'INTERNAL', message: 'Internal error.', requestId: expect.any(String) } });
    expect(response.body).not.toContain('hunter2');
    expect(response.body).not.toContain('10.0.0.7');
    expect(response.body).not.toMatch(/at .*\.ts:\d+/);
  });
});

describe('POST /fn/<name>: the envelope and the input', () => {
  it('answers {"data": result}', async () => {
    const response = await post('echo', { data: { name: 'Tape', qty: 2 } });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ data: { ok: true, input: { name: 'Tape', qty: 2 } } });
  });

  it('a function that returns nothing answers {"data": null}', async () => {
    const response = await post('nothing', { data: null });
    expect([response.statusCode, response.json()]).toEqual([200, { data: null }]);
  });

  it('an unknown function -> 404 NOT_FOUND as JSON', async () => {
    const response = await post('noSuchFunction', { data: {} });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({
      error: { status: 'NOT_FOUND', message: 'Function noSuchFunction does not exist.', requestId: expect.any(String) },
    });
  });

  const ENVELOPE = 'The request body must be a JSON object with a data field.';
  it.each<[string, string, Record<string, string>, string | RegExp]>([
    ['a body without data', '{}', {}, ENVELOPE],
    ['a body with other fields only', '{"payload": {}}', {}, ENVELOPE],
    ['an array body', '[{"data": 1}]', {}, ENVELOPE],
    ['a JSON string body', '"data"', {}, ENVELOPE],
    ['a JSON null body', 'null', {}, ENVELOPE],
    ['a body that is not JSON', '{"data": ', {}, /JSON/],
    ['an empty body', '', {}, /empty/i],
    ['a form body', 'data=1', { 'content-type': 'application/x-www-form-urlencoded' }, 'Send the request body as JSON.'],
  ])('%s -> 400 INVALID_ARGUMENT with a clear message', async (_name, payload, headers, message) => {
    const response = await post('echo', payload, headers);
    expect(response.statusCode).toBe(400);
    const body = response.json<{ error: { status: string; message: string } }>();
    expect(body.error.status).toBe('INVALID_ARGUMENT');
    if (typeof message === 'string') expect(body.error.message).toBe(message);
    else expect(body.error.message).toMatch(message);
  });

  it.each<[string, unknown, string]>([
    ['a missing field', { qty: 1 }, 'name'],
    ['a wrong type', { name: 'Tape', qty: 'two' }, 'qty'],
    ['a number too small', { name: 'Tape', qty: 0 }, 'qty'],
    ['an unknown field', { name: 'Tape', qty: 1, price: 0 }, 'price'],
  ])('input with %s -> 400 naming the field', async (_name, data, field) => {
    const response = await post('echo', { data });
    expect(response.statusCode).toBe(400);
    const { error } = response.json<{ error: { status: string; message: string } }>();
    expect(error.status).toBe('INVALID_ARGUMENT');
    expect(error.message).toContain(field);
  });

  it('a body over the size limit -> 400 (413 is not in the table)', async () => {
    const response = await post('echo', { data: { name: 'x'.repeat(1024 * 1024 + 10), qty: 1 } });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ error: { status: 'INVALID_ARGUMENT', message: 'The request body is too large.', requestId: expect.any(String) } });
  });
});

describe('POST /fn/<name>: access', () => {
  it.each([['mine'], ['adminOnly']])('%s refuses an anonymous caller with 401 UNAUTHENTICATED', async (name) => {
    const response = await post(name, { data: {} });
    expect(response.statusCode).toBe(401);
    expect(response.json<{ error: { status: string } }>().error.status).toBe('UNAUTHENTICATED');
  });

  it('an unknown bearer token is still anonymous', async () => {
    const response = await post('mine', { data: {} }, { authorization: 'Bearer not-a-real-token' });
    expect(response.statusCode).toBe(401);
  });
});

describe('end to end over HTTP with the sdk client', () => {
  let baseUrl: string;

  beforeAll(() => {
    baseUrl = shop.baseUrl;
  });

  async function callError(name: string, data: unknown): Promise<FunctionsError> {
    const error: unknown = await createFunctionsClient({ baseUrl })
      .callUntyped(name, data)
      .then(
        () => undefined,
        (caught: unknown) => caught,
      );
    expect(error).toBeInstanceOf(FunctionsError);
    return error as FunctionsError;
  }

  it('a successful call returns the data', async () => {
    const client = createFunctionsClient({ baseUrl });
    await expect(client.callUntyped('echo', { name: 'Tape', qty: 3 })).resolves.toEqual({ ok: true, input: { name: 'Tape', qty: 3 } });
  });

  it.each(CODES.map(([code]) => [code] as const))('a thrown %s reaches the client as that code', async (code) => {
    const error = await callError('throwCode', { code });
    expect(error.code).toBe(code);
    expect(error.message).toBe(`Thrown with ${code}.`);
  });

  it.each<[string, string, FunctionErrorCode, unknown, string | RegExp]>([
    ['a crash', 'crash', 'internal', {}, 'Internal error.'],
    ['an unknown function', 'noSuchFunction', 'not-found', {}, 'Function noSuchFunction does not exist.'],
    ['a bad input', 'echo', 'invalid-argument', { name: '', qty: 1 }, /^name: /],
    ['a signed-in function called anonymously', 'mine', 'unauthenticated', {}, 'Please sign in first.'],
    ['an admin function called anonymously', 'adminOnly', 'unauthenticated', {}, 'Please sign in first.'],
  ])('%s (%s) -> %s', async (_case, fn, code, data, message) => {
    const error = await callError(fn, data);
    expect(error.code).toBe(code);
    if (typeof message === 'string') expect(error.message).toBe(message);
    else expect(error.message).toMatch(message);
  });
});
