import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { Product } from '@storefront/domain/catalog.ts';
import type { LiveHub, LiveListener } from '../live/live.hub.ts';
import { createCatalogCache } from './catalog.cache.ts';
import { etagMatches, preferredEncoding } from '../http/representation.ts';

/** A hub whose events and connection state the test drives. */
function manualHub() {
  const listeners = new Set<LiveListener>();
  const gapListeners = new Set<() => void>();
  let listening = true;
  const hub: LiveHub = {
    subscribe: (listener) => (listeners.add(listener), () => listeners.delete(listener)),
    onMissedEvents: (listener) => (gapListeners.add(listener), () => gapListeners.delete(listener)),
    isListening: () => listening,
    stop: async () => undefined,
  };
  return {
    hub,
    notify: (topic: 'products' | 'all-orders') => listeners.forEach((listener) => listener({ topic })),
    dropConnection: () => {
      listening = false;
      gapListeners.forEach((listener) => listener());
    },
    reconnect: () => {
      listening = true;
    },
  };
}

const tee = (name: string, isActive = true): Product => ({
  id: 'p_1',
  options: [],
  variants: [],
  name,
  description: 'Tee',
  priceCents: 2500,
  images: ['/a.svg'],
  order: 0,
  isActive,
  category: 'merch',
  updatedAt: '2026-01-01T00:00:00.000Z',
});

/** A "database" whose current rows the test sets, counting the loads. */
function catalogue(initial: Product[]) {
  const state = { rows: initial, loads: 0 };
  const load = async () => {
    state.loads += 1;
    return state.rows;
  };
  return { state, load };
}

const listOf = async (cache: ReturnType<typeof createCatalogCache>) => JSON.parse((await cache.snapshot()).list.body.toString()) as { products: Product[] };

describe('the catalogue cache', () => {
  it('loads once for many reads, and again after a products NOTIFY', async () => {
    const { hub, notify } = manualHub();
    const { state, load } = catalogue([tee('Tee')]);
    const cache = createCatalogCache(load, hub);
    await Promise.all([listOf(cache), listOf(cache), listOf(cache)]);
    expect(state.loads).toBe(1);

    state.rows = [tee('Tee, new colour')];
    notify('all-orders');
    expect((await listOf(cache)).products[0]!.name).toBe('Tee');
    notify('products');
    expect((await listOf(cache)).products[0]!.name).toBe('Tee, new colour');
    expect(state.loads).toBe(2);
  });

  it('sees a change made by this process at once (invalidate), before any NOTIFY', async () => {
    const { hub } = manualHub();
    const { state, load } = catalogue([tee('Tee')]);
    const cache = createCatalogCache(load, hub);
    await listOf(cache);
    state.rows = [tee('Tee', false)];
    cache.invalidate();
    expect((await listOf(cache)).products[0]!.isActive).toBe(false);
  });

  it('never keeps a load that started before a change', async () => {
    const { hub, notify } = manualHub();
    let release: (rows: Product[]) => void = () => undefined;
    let loads = 0;
    const cache = createCatalogCache(() => {
      loads += 1;
      return loads === 1 ? new Promise<Product[]>((resolve) => (release = resolve)) : Promise.resolve([tee('After')]);
    }, hub);
    const early = listOf(cache);
    notify('products'); // the change commits while the first load is still reading
    release([tee('Before')]);
    expect((await early).products[0]!.name).toBe('Before');
    expect((await listOf(cache)).products[0]!.name).toBe('After');
  });

  it('keeps nothing while the LISTEN connection is down, and drops its copy when it drops', async () => {
    const { hub, dropConnection, reconnect } = manualHub();
    const { state, load } = catalogue([tee('Tee')]);
    const cache = createCatalogCache(load, hub);
    await listOf(cache);
    dropConnection();
    state.rows = [tee('Changed while deaf')];
    expect((await listOf(cache)).products[0]!.name).toBe('Changed while deaf');
    await listOf(cache);
    expect(state.loads).toBe(3);
    reconnect();
    await listOf(cache);
    await listOf(cache);
    expect(state.loads).toBe(4);
  });

  it('hands out the loaded snapshot without waiting only while it is current', async () => {
    const { hub, notify, dropConnection, reconnect } = manualHub();
    const { state, load } = catalogue([tee('Tee')]);
    const cache = createCatalogCache(load, hub);
    expect(cache.loaded()).toBeUndefined();
    const first = await cache.snapshot();
    expect(cache.loaded()).toBe(first);
    notify('products');
    expect(cache.loaded()).toBeUndefined();
    state.rows = [tee('Tee, new colour')];
    await cache.snapshot();
    expect(JSON.parse(cache.loaded()!.list.body.toString()).products[0].name).toBe('Tee, new colour');
    dropConnection();
    expect(cache.loaded()).toBeUndefined();
    await cache.snapshot();
    expect(cache.loaded()).toBeUndefined();
    reconnect();
    await cache.snapshot();
    expect(cache.loaded()).toBeDefined();
  });

  it('never hands out, without waiting, a load that started before a change', async () => {
    const { hub, notify } = manualHub();
    let release: (rows: Product[]) => void = () => undefined;
    const cache = createCatalogCache(() => new Promise<Product[]>((resolve) => (release = resolve)), hub);
    const early = cache.snapshot();
    notify('products');
    release([tee('Before')]);
    await early;
    expect(cache.loaded()).toBeUndefined();
  });

  it('gives each active product its own body and ETag, and none for others', async () => {
    const { hub } = manualHub();
    const cache = createCatalogCache(async () => [tee('Tee')], hub);
    const snapshot = await cache.snapshot();
    expect(JSON.parse(snapshot.product('p_1')!.body.toString())).toEqual({ product: tee('Tee') });
    expect(snapshot.product('p_1')!.etag).not.toBe(snapshot.list.etag);
    expect(snapshot.product('p_unknown')).toBeUndefined();
    const br = await snapshot.list.encoded('br');
    expect((await promisify(zlib.brotliDecompress)(br)).equals(snapshot.list.body)).toBe(true);
  });
});

describe('content negotiation', () => {
  it.each([
    [undefined, 'identity'],
    ['', 'identity'],
    ['gzip, deflate, br, zstd', 'br'],
    ['gzip', 'gzip'],
    ['br;q=0, gzip;q=0.5', 'gzip'],
    ['identity', 'identity'],
    ['*', 'br'],
    ['*;q=0, identity', 'identity'],
  ])('Accept-Encoding %j -> %s', (header, expected) => {
    expect(preferredEncoding(header)).toBe(expected);
  });

  it.each([
    [undefined, false],
    ['W/"abc"', true],
    ['"abc"', true],
    ['W/"other", W/"abc"', true],
    ['*', true],
    ['W/"abcd"', false],
  ])('If-None-Match %j matches W/"abc": %s', (header, expected) => {
    expect(etagMatches(header, 'W/"abc"')).toBe(expected);
  });
});
