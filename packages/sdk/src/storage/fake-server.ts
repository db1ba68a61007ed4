import type { StorageObjectResource } from '@storefront/domain/storage.ts';
import type { Clock } from './storage.ts';

/**
 * An in-memory stand-in for the storage service's upload protocol, for the sdk's unit
 * tests: it records every request and can fail or hold any of them.
 */
export interface FakeRequest {
  method: string;
  /** Where the client sent it (scheme, host and port). */
  origin: string;
  path: string;
  query: URLSearchParams;
  headers: Headers;
  command: string | null;
  offset: number | null;
  body: Uint8Array;
}

export type FakeFault = { status: number; body?: unknown; headers?: Record<string, string> } | 'network' | { hold: Promise<void> } | undefined;

export function virtualClock() {
  let now = 0;
  const sleeps: number[] = [];
  const clock: Clock = {
    now: () => now,
    sleep: async (ms, signal) => {
      if (signal?.aborted) throw signal.reason;
      sleeps.push(ms);
      now += ms;
      await Promise.resolve();
    },
  };
  return { clock, sleeps };
}

function metadataOf(path: string, bytes: Uint8Array, contentType: string, customMetadata: Record<string, string>): StorageObjectResource {
  const time = new Date(0).toISOString();
  return {
    kind: 'storage#object',
    id: `storefront/${path}/1`,
    bucket: 'storefront',
    name: path,
    size: String(bytes.length),
    contentType,
    timeCreated: time,
    updated: time,
    md5Hash: 'fake',
    metadata: customMetadata,
    downloadTokens: 'token-1',
    generation: '1',
    metageneration: '1',
  };
}

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
}

function abortable<T>(promise: Promise<T>, signal: AbortSignal | null | undefined): Promise<T> {
  if (!signal) return promise;
  return new Promise<T>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
    promise.then(resolve, reject);
  });
}

/** The fake server's PUBLIC_URL: its session URLs are absolute, as the real server's. */
export const FAKE_PUBLIC_URL = 'https://shop.example';

export function fakeStorageServer(fault: (request: FakeRequest, index: number) => FakeFault = () => undefined) {
  const objects = new Map<string, { bytes: Uint8Array; metadata: StorageObjectResource }>();
  const sessions = new Map<string, { path: string; total: number; bytes: Uint8Array; received: number; contentType: string }>();
  const requests: FakeRequest[] = [];

  const fetchImpl = async (input: RequestInfo | URL, init: RequestInit = {}): Promise<Response> => {
    const url = new URL(String(input));
    const headers = new Headers(init.headers);
    const body = new Uint8Array(await new Response(init.body ?? null).arrayBuffer());
    const offset = headers.get('x-goog-upload-offset');
    const request: FakeRequest = {
      method: init.method ?? 'GET',
      origin: url.origin,
      path: decodeURIComponent(url.pathname),
      query: url.searchParams,
      headers,
      command: headers.get('x-goog-upload-command'),
      offset: offset === null ? null : Number(offset),
      body,
    };
    requests.push(request);
    const planned = fault(request, requests.length - 1);
    if (planned === 'network') throw new TypeError('fetch failed');
    if (planned && 'hold' in planned) await abortable(planned.hold, init.signal);
    if (init.signal?.aborted) throw init.signal.reason;
    if (planned && 'status' in planned) return json(planned.status, planned.body ?? {}, planned.headers);

    const objectPath = /^\/v0\/b\/storefront\/o\/(.+)$/.exec(request.path)?.[1];
    if (request.method === 'GET' && objectPath) {
      const object = objects.get(objectPath);
      return object ? json(200, object.metadata) : json(404, { error: { code: 404, status: 'object-not-found', message: `Object '${objectPath}' does not exist.` } });
    }
    const name = url.searchParams.get('name') ?? '';
    if (url.searchParams.get('uploadType') === 'multipart') {
      const text = new TextDecoder('latin1').decode(body);
      const boundary = /boundary=(\S+)/.exec(headers.get('content-type') ?? '')![1]!;
      const parts = text.split(`--${boundary}`).slice(1, -1);
      const metadata = JSON.parse(parts[0]!.split('\r\n\r\n')[1]!.slice(0, -2)) as { contentType: string; customMetadata?: Record<string, string> };
      const dataStart = text.indexOf('\r\n\r\n', text.indexOf(parts[1]!)) + 4;
      const bytes = body.slice(dataStart, text.lastIndexOf(`\r\n--${boundary}--`));
      const stored = metadataOf(name, bytes, metadata.contentType, metadata.customMetadata ?? {});
      objects.set(name, { bytes, metadata: stored });
      return json(200, stored);
    }
    if (request.command === 'start') {
      const id = `session-${sessions.size + 1}`;
      const total = Number(headers.get('x-goog-upload-header-content-length'));
      sessions.set(id, { path: name, total, bytes: new Uint8Array(total), received: 0, contentType: headers.get('x-goog-upload-header-content-type') ?? '' });
      return json(200, {}, { 'x-goog-upload-status': 'active', 'x-goog-upload-url': `${FAKE_PUBLIC_URL}/v0/b/storefront/o?name=${encodeURIComponent(name)}&upload_id=${id}` });
    }
    const session = sessions.get(url.searchParams.get('upload_id') ?? '');
    if (!session) return json(404, { error: { status: 'object-not-found', message: 'no session' } });
    const status = (value: string) => ({ 'x-goog-upload-status': value, 'x-goog-upload-size-received': String(session.received) });
    if (request.command === 'query') return json(200, {}, status(session.received === session.total && objects.has(session.path) ? 'final' : 'active'));
    if (request.offset !== session.received) return json(409, {}, status('active'));
    session.bytes.set(body, session.received);
    session.received += body.length;
    if (request.command?.includes('finalize')) {
      const stored = metadataOf(session.path, session.bytes, session.contentType, {});
      objects.set(session.path, { bytes: session.bytes, metadata: stored });
      return json(200, stored, status('final'));
    }
    return json(200, {}, status('active'));
  };

  return { fetch: fetchImpl as typeof fetch, requests, objects, sessions };
}
