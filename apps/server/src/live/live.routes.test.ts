import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { openSse } from '../../test/sse.ts';
import type { ResolvedSession } from '../accounts/auth.routes.ts';
import type { LiveHub, LiveListener } from './live.hub.ts';
import { ACCOUNT_CHANGED, SESSION_ENDED, SESSION_EXPIRY, type LiveEvent } from './live.publish.ts';
import { liveRoutes } from './live.routes.ts';

/**
 * The stream's side of decision 020 with a hub in memory: the paths the real-database test
 * (test/reliability/live-sessions.test.ts) cannot provoke on demand.
 */
function memoryHub() {
  const listeners = new Set<LiveListener>();
  const gapListeners = new Set<() => void>();
  const hub: LiveHub = {
    subscribe: (listener) => (listeners.add(listener), () => listeners.delete(listener)),
    onMissedEvents: (listener) => (gapListeners.add(listener), () => gapListeners.delete(listener)),
    isListening: () => true,
    stop: async () => undefined,
  };
  return {
    hub,
    emit: (event: LiveEvent) => listeners.forEach((listener) => listener(event)),
    gap: () => gapListeners.forEach((listener) => listener()),
  };
}

const session = (expiresInMs: number): ResolvedSession => ({ caller: { userId: 'u1', isAdmin: false }, sessionId: 's1', expiresAt: new Date(Date.now() + expiresInMs) });
const endedWithin = (stream: { ended: Promise<void> }, ms: number) =>
  Promise.race([stream.ended.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms))]);

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

async function serve(options: Omit<Parameters<typeof liveRoutes>[1], 'hub'> & { hub: LiveHub }) {
  app = Fastify({ logger: false });
  await app.register(liveRoutes, options);
  return app.listen({ port: 0, host: '127.0.0.1' });
}

describe('a live stream and its session', () => {
  it('is closed when notifications were missed, so its client is authorised anew', async () => {
    const memory = memoryHub();
    const base = await serve({ hub: memory.hub, resolveSession: async () => session(60_000), sessionExpiresAt: async () => null });
    const stream = await openSse(`${base}/api/live`);
    await stream.waitFor((event) => event.event === 'ready');
    memory.gap();
    expect(await endedWithin(stream, 10_000)).toBe(true);
  });

  it('is anonymous when its session ended while it was being authorised', async () => {
    const memory = memoryHub();
    const base = await serve({
      hub: memory.hub,
      resolveSession: async () => {
        memory.emit({ topic: SESSION_ENDED, id: 's1' });
        return session(60_000);
      },
      sessionExpiresAt: async () => null,
    });
    const stream = await openSse(`${base}/api/live`);
    const ready = await stream.waitFor((event) => event.event === 'ready');
    expect(JSON.parse(ready.data)).toEqual({ signedIn: false, isAdmin: false, resumed: false });
    memory.emit({ topic: 'wallet', userId: 'u1', id: 'private' });
    memory.emit({ topic: 'products', id: 'p1' });
    await stream.waitFor((event) => event.event === 'products');
    expect(stream.events.map((event) => event.event)).toEqual(['ready', 'products']);
    await stream.close();
  });

  it('sends a stock event with the units left, and other events with the id alone (decision 067)', async () => {
    const memory = memoryHub();
    const base = await serve({ hub: memory.hub, resolveSession: async () => null, sessionExpiresAt: async () => null });
    const stream = await openSse(`${base}/api/live`);
    await stream.waitFor((event) => event.event === 'ready');
    memory.emit({ topic: 'products', id: 'p1', stock: { 'p1~s': 0, 'p1~m': null } });
    memory.emit({ topic: 'products', id: 'p2' });
    await stream.waitFor((event) => event.event === 'products' && event.data.includes('p2'));
    expect(stream.events.filter((event) => event.event === 'products').map((event) => JSON.parse(event.data))).toEqual([
      { id: 'p1', stock: { 'p1~s': 0, 'p1~m': null } },
      { id: 'p2' },
    ]);
    await stream.close();
  });

  it('is closed when its account’s rights changed while it was being authorised (decision 042)', async () => {
    const memory = memoryHub();
    const admin: ResolvedSession = { ...session(60_000), caller: { userId: 'u1', isAdmin: true } };
    const base = await serve({
      hub: memory.hub,
      resolveSession: async () => {
        memory.emit({ topic: ACCOUNT_CHANGED, userId: 'u1', id: 'u1' });
        return admin;
      },
      sessionExpiresAt: async () => null,
    });
    const stream = await openSse(`${base}/api/live`);
    expect(await endedWithin(stream, 10_000)).toBe(true);
    expect(stream.events.filter((event) => event.event === ACCOUNT_CHANGED)).toEqual([]);
  });

  it('is closed when its account’s rights change, never told so, and other accounts’ streams stay', async () => {
    const memory = memoryHub();
    const base = await serve({
      hub: memory.hub,
      resolveSession: async (request) => (request.headers.cookie === 'other' ? { ...session(60_000), caller: { userId: 'u2', isAdmin: true }, sessionId: 's2' } : session(60_000)),
      sessionExpiresAt: async () => null,
    });
    const stream = await openSse(`${base}/api/live`);
    const other = await openSse(`${base}/api/live`, { cookie: 'other' });
    await stream.waitFor((event) => event.event === 'ready');
    await other.waitFor((event) => event.event === 'ready');
    memory.emit({ topic: ACCOUNT_CHANGED, userId: 'u1', id: 'u1' });
    expect(await endedWithin(stream, 10_000)).toBe(true);
    memory.emit({ topic: 'all-orders', id: 'o1' });
    await other.waitFor((event) => event.event === 'all-orders');
    expect(other.events.map((event) => event.event)).toEqual(['ready', 'all-orders']);
    await other.close();
  });

  it('waits for an expiry the page extended meanwhile, and closes at the real one', async () => {
    // Driven by the stream's own reads, not by the wall clock (a loaded machine delays
    // any step): the first read of the expiry is held until the test has seen the stream
    // still delivering after the session's first expiry, then answers an extended one.
    const memory = memoryHub();
    let reads = 0;
    let extended = 0;
    let firstRead!: () => void;
    const firstReadStarted = new Promise<void>((resolve) => (firstRead = resolve));
    let answerFirstRead!: (expiresAt: Date) => void;
    const firstAnswer = new Promise<Date>((resolve) => (answerFirstRead = resolve));
    const base = await serve({
      hub: memory.hub,
      resolveSession: async () => session(300),
      sessionExpiresAt: async () => {
        reads += 1;
        if (reads > 1) return new Date(extended);
        firstRead();
        return firstAnswer;
      },
    });
    const stream = await openSse(`${base}/api/live`);
    await stream.waitFor((event) => event.event === 'ready');
    // The first expiry has passed (its timer reads the session), and the stream still delivers.
    await firstReadStarted;
    memory.emit({ topic: 'wallet', userId: 'u1', id: 'extended' });
    await stream.waitFor((event) => event.event === 'wallet');
    extended = Date.now() + 300;
    answerFirstRead(new Date(extended));
    expect(await endedWithin(stream, 10_000)).toBe(true);
    // Closed at the extended expiry, not before it, after reading it again.
    expect(Date.now()).toBeGreaterThanOrEqual(extended);
    expect(reads).toBeGreaterThanOrEqual(2);
  });

  it('closes at an expiry brought forward, and never sends the internal session events', async () => {
    const memory = memoryHub();
    const base = await serve({ hub: memory.hub, resolveSession: async () => session(60_000), sessionExpiresAt: async () => null });
    const stream = await openSse(`${base}/api/live`);
    await stream.waitFor((event) => event.event === 'ready');
    memory.emit({ topic: SESSION_EXPIRY, id: 'other-session', expiresAt: Date.now() });
    memory.emit({ topic: SESSION_ENDED, id: 'other-session' });
    memory.emit({ topic: SESSION_EXPIRY, id: 's1', expiresAt: Date.now() + 200 });
    expect(await endedWithin(stream, 10_000)).toBe(true);
    expect(stream.events.map((event) => event.event)).toEqual(['ready']);
  });
});
