import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/app.ts';
import { createLogger } from '../logger.ts';
import { REQUEST_ID_HEADER } from './request-id.ts';

/**
 * Request ids (issue 25 item 6, issue 24 item 8): on every answer, hijacked ones (the live
 * stream) included; a trusted proxy's id kept, anyone else's replaced; on every log line of
 * the request; in every error body, ours and Better Auth's.
 */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
let shop: TestApp;
const lines: string[] = [];
const logged = () => lines.map((line) => JSON.parse(line) as { msg: string; requestId?: string; url?: string });

beforeAll(async () => {
  const logger = createLogger({ LOG_LEVEL: 'info', isProduction: true }, { write: (line: string) => void lines.push(line) });
  shop = await startTestApp({ config: { env: { TRUSTED_PROXIES: '127.0.0.1', LOG_LEVEL: 'info' } }, build: { logger: undefined, loggerInstance: logger } });
  await shop.account('idfan');
});

afterAll(async () => {
  await shop?.close();
});

describe('X-Request-Id', () => {
  it('is generated for every answer, unique, as a random UUID', async () => {
    const answers = await Promise.all([
      shop.app.inject({ method: 'GET', url: '/healthz', remoteAddress: '203.0.113.9' }),
      shop.app.inject({ method: 'GET', url: '/healthz', remoteAddress: '203.0.113.9' }),
      shop.app.inject({ method: 'GET', url: '/no/such/file.txt', remoteAddress: '203.0.113.9' }),
      shop.app.inject({ method: 'POST', url: '/fn/noSuchFunction', remoteAddress: '203.0.113.9', payload: { data: {} } }),
    ]);
    const ids = answers.map((answer) => answer.headers[REQUEST_ID_HEADER]);
    for (const id of ids) expect(id).toMatch(UUID);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('keeps the id a trusted proxy sent, and replaces one from anybody else or one that is not an id', async () => {
    const fromProxy = await shop.app.inject({ method: 'GET', url: '/healthz', remoteAddress: '127.0.0.1', headers: { 'x-request-id': '0f1e2d3c4b5a69788796a5b4c3d2e1f0' } });
    expect(fromProxy.headers[REQUEST_ID_HEADER]).toBe('0f1e2d3c4b5a69788796a5b4c3d2e1f0');
    const fromClient = await shop.app.inject({ method: 'GET', url: '/healthz', remoteAddress: '203.0.113.9', headers: { 'x-request-id': '0f1e2d3c4b5a69788796a5b4c3d2e1f0' } });
    expect(fromClient.headers[REQUEST_ID_HEADER]).toMatch(UUID);
    const notAnId = await shop.app.inject({ method: 'GET', url: '/healthz', remoteAddress: '127.0.0.1', headers: { 'x-request-id': 'has spaces "and quotes"' } });
    expect(notAnId.headers[REQUEST_ID_HEADER]).toMatch(UUID);
  });

  it('is on a hijacked answer too (the live stream)', async () => {
    const id = await new Promise<string | undefined>((resolve, reject) => {
      const request = http.get(`${shop.baseUrl}/api/live?topics=products`, (response) => {
        const header = response.headers[REQUEST_ID_HEADER];
        response.destroy();
        resolve(typeof header === 'string' ? header : undefined);
      });
      request.on('error', (error) => (error.message.includes('aborted') ? undefined : reject(error)));
    });
    expect(id).toMatch(UUID);
  });

  it('is in every error body: our error handler, the not-found answer, and Better Auth’s refusals', async () => {
    const invalid = await shop.app.inject({ method: 'POST', url: '/fn/getProduct', remoteAddress: '203.0.113.9', payload: { data: { nonsense: true } } });
    expect(invalid.statusCode).toBeGreaterThanOrEqual(400);
    expect(invalid.json()).toMatchObject({ error: { requestId: invalid.headers[REQUEST_ID_HEADER] } });

    const missing = await shop.app.inject({ method: 'GET', url: '/api/nothing-here', remoteAddress: '203.0.113.9' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ error: { status: 'NOT_FOUND', requestId: missing.headers[REQUEST_ID_HEADER] } });

    const wrongPassword = await fetch(`${shop.baseUrl}/api/auth/sign-in/email`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: shop.baseUrl },
      body: JSON.stringify({ email: 'idfan@example.org', password: 'not the password' }),
    });
    expect(wrongPassword.status).toBe(401);
    const body = (await wrongPassword.json()) as { requestId?: string };
    expect(body.requestId).toBe(wrongPassword.headers.get(REQUEST_ID_HEADER));
  });

  it('is on every log line of its request', async () => {
    const answer = await shop.app.inject({ method: 'POST', url: '/fn/noSuchFunction', remoteAddress: '203.0.113.9', payload: { data: {} } });
    const id = answer.headers[REQUEST_ID_HEADER] as string;
    const mine = logged().filter((entry) => entry.requestId === id);
    // The refusal and the request line, both carrying it.
    expect(mine.map((entry) => entry.msg)).toEqual(expect.arrayContaining(['request refused', 'request']));
    expect(logged().filter((entry) => entry.msg === 'request' && !entry.requestId)).toEqual([]);
  });
});
