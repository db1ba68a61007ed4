import net from 'node:net';
import { EventSource } from 'eventsource';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quote as priceQuote } from '@storefront/domain/pricing.ts';
import { createFunctionsClient } from '@storefront/sdk/callable.ts';
import { createAccount } from '../../src/accounts/accounts.service.ts';
import { releaseProduct } from '../../src/catalog/catalog.service.ts';
import { freePort } from '../../src/db/embedded.ts';
import { grantCredits } from '../../src/wallet/wallet.commands.ts';
import { startTestApp, type TestApp } from '../app.ts';
import type { TestDatabase } from '../database.ts';
import { signInForToken } from '../sign-in.ts';
import { openSse } from '../sse.ts';

/**
 * Conformance (issue 19 item 5, decision 029): the `eventsource` 4 package, unchanged,
 * through a proxy that cuts the connection. What changed while it was cut arrives after
 * it reconnects (Last-Event-ID), and a wallet-only order tells the buyer `wallet` too.
 */
let shop: TestApp;
let database: TestDatabase;
let origin: string;
let proxy: CuttingProxy;
const tokens: Record<'admin' | 'fan', string> = { admin: '', fan: '' };
let teeId: string;

/** A TCP proxy to the shop that can cut every connection and refuse new ones for a while. */
interface CuttingProxy {
  url: string;
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

async function startCuttingProxy(target: number): Promise<CuttingProxy> {
  const sockets = new Set<net.Socket>();
  let refusing = false;
  const proxyServer = net.createServer((client) => {
    if (refusing) return client.destroy();
    const upstream = net.connect(target, '127.0.0.1');
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
    }
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  const port = await freePort();
  await new Promise<void>((resolve) => proxyServer.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${port}`,
    cut() {
      refusing = true;
      for (const socket of sockets) socket.destroy();
    },
    restore() {
      refusing = false;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        proxyServer.close(() => resolve());
      }),
  };
}

beforeAll(async () => {
  shop = await startTestApp({
    async seed({ db, config }) {
      for (const [email, username, role] of [
        ['boss@example.org', 'Boss', 'admin'],
        ['fan@example.org', 'FanOne', 'user'],
      ] as const) {
        await createAccount(
          db,
          config,
          { email, username, name: username, password: 'correct horse', confirmPassword: 'correct horse', acceptedTerms: true },
          { emailVerified: true, role },
        );
      }
      teeId = await releaseProduct(db, { name: 'Label Tee', description: 'Tee', priceCents: 2500, images: ['/content/covers/cover-01.svg'] });
    },
  });
  ({ database, baseUrl: origin } = shop);
  const port = shop.config.PORT;
  tokens.admin = await signInForToken(origin, 'boss@example.org');
  tokens.fan = await signInForToken(origin, 'fan@example.org');
  proxy = await startCuttingProxy(port);
});

afterAll(async () => {
  await proxy?.close();
  await shop?.close();
});

interface Received {
  type: string;
  data: string;
  lastEventId: string;
}

// --- snippet: eventsource (README "Using the shop from another app") ---
/** Live updates for a shop user: `eventsource` sends the token through its fetch option and reconnects with Last-Event-ID. */
function shopLiveUpdates(shopOrigin: string, shopToken: string, topics: string[]) {
  return new EventSource(`${shopOrigin}/api/live?topics=${topics.join(',')}`, {
    fetch: (input, init) => fetch(input, { ...init, headers: { ...init?.headers, authorization: `Bearer ${shopToken}` } }),
  });
}
// --- end snippet ---

function record(source: EventSource, types: string[]) {
  const received: Received[] = [];
  for (const type of types) source.addEventListener(type, (event) => received.push({ type, data: event.data, lastEventId: event.lastEventId }));
  return received;
}

async function until<T>(check: () => T | undefined, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('eventsource 4 through a connection that is cut', () => {
  it('gets the events it missed after reconnecting, the wallet event of a wallet-only order among them', async () => {
    const source = shopLiveUpdates(proxy.url, tokens.fan, ['products', 'wallet', 'orders']);
    const received = record(source, ['ready', 'resync', 'products', 'wallet', 'orders']);
    try {
      await until(() => received.find((event) => event.type === 'ready'), 'the first ready');
      expect(received[0]!.lastEventId).toMatch(/^[a-z0-9]+-\d+$/);

      proxy.cut();
      // While the connection is down: an edit, a wallet-only order by this user.
      await grantCredits(database.db, 'fan@example.org', '100', 'live-replay');
      await createFunctionsClient({ baseUrl: origin, getAuthToken: () => tokens.admin }).call('editBizarreProduct', {
        id: teeId,
        name: 'Label Tee (reissue)',
        description: 'Tee',
        priceCents: 2600,
        images: ['/content/covers/cover-01.svg'],
      });
      const order = await createFunctionsClient({ baseUrl: origin, getAuthToken: () => tokens.fan }).call('completeWalletOnlyOrderStreetFlavor', {
        items: [{ id: teeId, qty: 1 }],
        contact: { name: 'Fan One', email: 'fan@example.org', phone: '' },
        shipping: { name: 'Fan One', line1: '1 Main St', line2: '', city: 'Springfield', state: 'IL', postal_code: '62701', country: 'US' },
        quote: priceQuote([{ unitCents: 2600, qty: 1 }], 10_000, true),
        checkoutId: 'live-replay-order',
      });
      expect(order.ok).toBe(true);
      const before = received.length;
      proxy.restore();

      // Reconnected: the missed events, then a ready that says they were all replayed.
      const readies = await until(() => {
        const all = received.filter((event) => event.type === 'ready');
        return all.length >= 2 ? all : undefined;
      }, 'the second ready');
      const replayed = received.slice(before);
      expect(replayed.map((event) => event.type)).toEqual(expect.arrayContaining(['products', 'wallet', 'orders']));
      expect(replayed.find((event) => event.type === 'products')?.data).toBe(JSON.stringify({ id: teeId }));
      expect(JSON.parse(readies[1]!.data)).toMatchObject({ signedIn: true, resumed: true });
      expect(received.some((event) => event.type === 'resync')).toBe(false);
      // Replayed events come before the ready, each with its own increasing id.
      const ids = replayed.filter((event) => event.type !== 'ready').map((event) => Number(event.lastEventId.split('-')[1]));
      expect(ids).toEqual([...ids].sort((a, b) => a - b));
    } finally {
      source.close();
    }
  });

  it('sends resync to a client whose last event is not known here', async () => {
    const stream = await openSse(`${origin}/api/live?topics=products`, { 'last-event-id': 'ffffffffffff-3' });
    try {
      await stream.waitFor((event) => event.event === 'ready');
      expect(stream.events.map((event) => event.event)).toEqual(['resync', 'ready']);
      expect(JSON.parse(stream.events[1]!.data)).toMatchObject({ resumed: false });
    } finally {
      await stream.close();
    }
  });

  it('replays only what the caller may see', async () => {
    // The last id the anonymous client saw, from a raw read of the stream.
    const raw = await fetch(`${origin}/api/live`, { headers: { accept: 'text/event-stream' } });
    const reader = raw.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    while (!text.includes('event: ready')) text += (await reader.read()).value ?? '';
    await reader.cancel();
    const lastId = /id: (\S+)\nevent: ready/.exec(text)![1]!;
    await grantCredits(database.db, 'fan@example.org', '1', 'private-change');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const anonymous = await openSse(`${origin}/api/live`, { 'last-event-id': lastId });
    try {
      await anonymous.waitFor((event) => event.event === 'ready');
      expect(anonymous.events.map((event) => event.event)).toEqual(['ready']);
      expect(JSON.parse(anonymous.events[0]!.data)).toMatchObject({ resumed: true, signedIn: false });
    } finally {
      await anonymous.close();
    }
  });
});
