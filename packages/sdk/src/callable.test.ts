import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { FunctionErrorCode } from '@storefront/domain/errors.ts';
import { CALLABLE_MESSAGES } from '@storefront/domain/messages.ts';
import { createFunctionsClient, DEFAULT_CALL_TIMEOUT_MS, FunctionsError } from './callable.ts';

/** A real HTTP peer on 127.0.0.1 that answers every request with `respond`. */
interface Peer {
  baseUrl: string;
  requests: { method: string; url: string; headers: http.IncomingHttpHeaders; body: string }[];
  /** Resolves when the next request has fully arrived. */
  nextRequest(): Promise<void>;
  close(): Promise<void>;
}

const peers: Peer[] = [];
afterEach(async () => {
  await Promise.all(peers.splice(0).map((peer) => peer.close()));
});

async function startPeer(respond: (req: http.IncomingMessage, res: http.ServerResponse) => void): Promise<Peer> {
  const requests: Peer['requests'] = [];
  let waiters: (() => void)[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const pending = waiters;
      waiters = [];
      for (const wake of pending) wake();
      respond(req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const peer: Peer = {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    nextRequest: () => new Promise((resolve) => waiters.push(resolve)),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  peers.push(peer);
  return peer;
}

function answer(status: number, body: string, contentType = 'application/json') {
  return (_req: http.IncomingMessage, res: http.ServerResponse) => {
    res.writeHead(status, { 'content-type': contentType });
    res.end(body);
  };
}

async function callError(promise: Promise<unknown>): Promise<FunctionsError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(FunctionsError);
  return error as FunctionsError;
}

describe('callable client: HTTP status -> error code (spec section 8)', () => {
  it.each<[number, FunctionErrorCode]>([
    [400, 'invalid-argument'],
    [401, 'unauthenticated'],
    [403, 'permission-denied'],
    [404, 'not-found'],
    [409, 'aborted'],
    [429, 'resource-exhausted'],
    [499, 'cancelled'],
    [500, 'internal'],
    [501, 'unimplemented'],
    [503, 'unavailable'],
    [504, 'deadline-exceeded'],
    [418, 'unknown'],
    [502, 'unknown'],
    [302, 'unknown'],
  ])('HTTP %i -> %s', async (status, code) => {
    const peer = await startPeer(answer(status, 'not json at all', 'text/plain'));
    const client = createFunctionsClient({ baseUrl: peer.baseUrl });
    const error = await callError(client.callUntyped('anything', {}));
    expect(error.code).toBe(code);
    expect(error.message).toBe(code);
  });

  it('connection refused (no HTTP status, "0" in the table) -> internal', async () => {
    const peer = await startPeer(answer(200, '{}'));
    const { baseUrl } = peer;
    await peer.close();
    const client = createFunctionsClient({ baseUrl });
    const error = await callError(client.callUntyped('anything', {}));
    expect(error.code).toBe('internal');
  });
});

describe('callable client: the error body', () => {
  it.each<[number, string, FunctionErrorCode]>([
    [400, 'FAILED_PRECONDITION', 'failed-precondition'],
    [400, 'OUT_OF_RANGE', 'out-of-range'],
    [409, 'ALREADY_EXISTS', 'already-exists'],
    [500, 'DATA_LOSS', 'data-loss'],
    [400, 'INVALID_ARGUMENT', 'invalid-argument'],
    [400, 'NOT_A_REAL_CODE', 'invalid-argument'],
  ])('HTTP %i with status %s -> %s, message passed through', async (status, name, code) => {
    const body = JSON.stringify({ error: { status: name, message: 'Cart changed since the quote.', details: { line: 2 } } });
    const peer = await startPeer(answer(status, body));
    const client = createFunctionsClient({ baseUrl: peer.baseUrl });
    const error = await callError(client.callUntyped('completeWalletOnlyOrderStreetFlavor', {}));
    expect(error.code).toBe(code);
    expect(error.message).toBe('Cart changed since the quote.');
    expect(error.details).toEqual({ line: 2 });
  });

  it('an error body without a message uses the code as the message', async () => {
    const peer = await startPeer(answer(403, JSON.stringify({ error: { status: 'PERMISSION_DENIED' } })));
    const error = await callError(createFunctionsClient({ baseUrl: peer.baseUrl }).callUntyped('x', {}));
    expect([error.code, error.message]).toEqual(['permission-denied', 'permission-denied']);
  });
});

describe('callable client: successful responses', () => {
  it.each<[string, string, string]>([
    ['a body that is not JSON', 'hello', CALLABLE_MESSAGES.notJsonObject],
    ['an empty body', '', CALLABLE_MESSAGES.notJsonObject],
    ['a JSON array', '[1,2]', CALLABLE_MESSAGES.notJsonObject],
    ['JSON null', 'null', CALLABLE_MESSAGES.notJsonObject],
    ['an object without data', '{}', CALLABLE_MESSAGES.missingData],
    ['an object with only other fields', '{"result": 1}', CALLABLE_MESSAGES.missingData],
  ])('200 with %s -> internal', async (_name, body, message) => {
    const peer = await startPeer(answer(200, body));
    const error = await callError(createFunctionsClient({ baseUrl: peer.baseUrl }).callUntyped('x', {}));
    expect(error.code).toBe('internal');
    expect(error.message).toBe(message);
  });

  it('the spec words the two messages exactly', () => {
    expect(CALLABLE_MESSAGES.notJsonObject).toBe('Response is not valid JSON object.');
    expect(CALLABLE_MESSAGES.missingData).toBe('Response is missing data field.');
  });

  it.each<[string, unknown]>([
    ['an object', { ok: true, redirectUrl: '/order-confirmation' }],
    ['null', null],
    ['a number', 0],
    ['a list', [1, 'two']],
  ])('200 with data = %s -> that value', async (_name, data) => {
    const peer = await startPeer(answer(200, JSON.stringify({ data })));
    await expect(createFunctionsClient({ baseUrl: peer.baseUrl }).callUntyped('x', {})).resolves.toEqual(data);
  });
});

describe('callable client: the request', () => {
  it('POSTs {"data": ...} as JSON to /fn/<name>, with the bearer token when there is one', async () => {
    const peer = await startPeer(answer(200, '{"data":null}'));
    const client = createFunctionsClient({ baseUrl: `${peer.baseUrl}/`, getAuthToken: async () => 'tok-123' });
    await client.callUntyped('releaseBizarreProduct', { name: 'Tape', priceCents: 1500 });
    expect(peer.requests).toHaveLength(1);
    const [request] = peer.requests;
    expect(request!.method).toBe('POST');
    expect(request!.url).toBe('/fn/releaseBizarreProduct');
    expect(request!.headers['content-type']).toBe('application/json');
    expect(request!.headers.authorization).toBe('Bearer tok-123');
    expect(JSON.parse(request!.body)).toEqual({ data: { name: 'Tape', priceCents: 1500 } });
  });

  it.each<[string, (() => string | null | undefined) | undefined]>([
    ['no token source', undefined],
    ['a null token', () => null],
    ['an empty token', () => ''],
  ])('sends no authorization header with %s', async (_name, getAuthToken) => {
    const peer = await startPeer(answer(200, '{"data":1}'));
    await createFunctionsClient({ baseUrl: peer.baseUrl, ...(getAuthToken ? { getAuthToken } : {}) }).callUntyped('x', undefined);
    expect(peer.requests[0]!.headers.authorization).toBeUndefined();
    // No payload still travels as {"data": null}.
    expect(JSON.parse(peer.requests[0]!.body)).toEqual({ data: null });
  });

  it('escapes the function name into one path segment', async () => {
    const peer = await startPeer(answer(200, '{"data":1}'));
    await createFunctionsClient({ baseUrl: peer.baseUrl }).callUntyped('a/../b?c', {});
    expect(peer.requests[0]!.url).toBe('/fn/a%2F..%2Fb%3Fc');
  });
});

describe('callable client: deadlines and cancellation', () => {
  it('waits 70 000 ms by default (spec section 7)', () => {
    expect(DEFAULT_CALL_TIMEOUT_MS).toBe(70_000);
  });

  it.each<[string, { client?: number; call?: number }]>([
    ['the client timeout', { client: 200 }],
    ['the per-call timeout', { client: 60_000, call: 200 }],
  ])('a server that never answers -> deadline-exceeded after %s', async (_name, timeouts) => {
    const peer = await startPeer(() => undefined);
    const client = createFunctionsClient({ baseUrl: peer.baseUrl, ...(timeouts.client ? { timeoutMs: timeouts.client } : {}) });
    const started = Date.now();
    const error = await callError(client.callUntyped('slow', {}, timeouts.call ? { timeoutMs: timeouts.call } : {}));
    expect(error.code).toBe('deadline-exceeded');
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
  });

  it('a body that stops half way -> deadline-exceeded', async () => {
    const peer = await startPeer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"data": {"ok": tr');
    });
    const error = await callError(createFunctionsClient({ baseUrl: peer.baseUrl, timeoutMs: 200 }).callUntyped('x', {}));
    expect(error.code).toBe('deadline-exceeded');
  });

  it('aborting the signal while waiting for the answer -> cancelled', async () => {
    const peer = await startPeer(() => undefined);
    const controller = new AbortController();
    const arrived = peer.nextRequest();
    const call = createFunctionsClient({ baseUrl: peer.baseUrl }).callUntyped('x', {}, { signal: controller.signal });
    await arrived;
    controller.abort();
    const error = await callError(call);
    expect(error.code).toBe('cancelled');
  });

  it('aborting the signal while the body is arriving -> cancelled', async () => {
    const peer = await startPeer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"data": ');
    });
    const controller = new AbortController();
    // The real fetch, watched only to learn when the status line and headers are in.
    let headersIn!: () => void;
    const headersArrived = new Promise<void>((resolve) => (headersIn = resolve));
    const watchedFetch: typeof fetch = async (...args) => {
      const response = await fetch(...args);
      headersIn();
      return response;
    };
    const client = createFunctionsClient({ baseUrl: peer.baseUrl, fetch: watchedFetch });
    const call = client.callUntyped('x', {}, { signal: controller.signal });
    await headersArrived;
    controller.abort();
    const error = await callError(call);
    expect(error.code).toBe('cancelled');
  });

  it('a signal aborted before the call -> cancelled, and nothing is sent', async () => {
    const peer = await startPeer(() => undefined);
    const error = await callError(createFunctionsClient({ baseUrl: peer.baseUrl, timeoutMs: 2_000 }).callUntyped('x', {}, { signal: AbortSignal.abort() }));
    expect(error.code).toBe('cancelled');
    expect(peer.requests).toHaveLength(0);
  });
});
