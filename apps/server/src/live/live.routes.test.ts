import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { openSse } from '../../test/sse.ts';
import type { ResolvedSession } from '../accounts/auth.routes.ts';
import type { LiveHub, LiveListener } from './live.hub.ts';
import { SESSION_ENDED, SESSION_EXPIRY, type LiveEvent } from './live.publish.ts';
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
    expect(await endedWithin(stream, 2_000)).toBe(true);
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

  it('waits for an expiry the page extended meanwhile, and closes at the real one', async () => {
    const memory = memoryHub();
    const expiries = [Date.now() + 600, Date.now() + 600];
    let reads = 0;
    const base = await serve({
      hub: memory.hub,
      resolveSession: async () => session(300),
      sessionExpiresAt: async () => new Date(expiries[Math.min(reads++, expiries.length - 1)]!),
    });
    const stream = await openSse(`${base}/api/live`);
    await stream.waitFor((event) => event.event === 'ready');
    expect(await endedWithin(stream, 450)).toBe(false);
    memory.emit({ topic: 'wallet', userId: 'u1', id: 'extended' });
    await stream.waitFor((event) => event.event === 'wallet');
    expect(await endedWithin(stream, 1_500)).toBe(true);
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
    expect(await endedWithin(stream, 1_500)).toBe(true);
    expect(stream.events.map((event) => event.event)).toEqual(['ready']);
  });
});
