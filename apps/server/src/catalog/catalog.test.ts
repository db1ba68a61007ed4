import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RELEASE_MESSAGES, type Product } from '@storefront/domain/catalog.ts';
import { createAuthClient } from '@storefront/sdk/auth.ts';
import { createFunctionsClient, type FunctionsError } from '@storefront/sdk/callable.ts';
import { startTestApp, type TestApp } from '../../test/app.ts';
import type { TestDatabase } from '../../test/database.ts';
import { openSse } from '../../test/sse.ts';
import { createAccount } from '../accounts/accounts.service.ts';
import type { Config } from '../config.ts';
import { productImages, products } from '../db/schema/index.ts';

let database: TestDatabase;
const apps: TestApp[] = [];
let baseA: string;
let baseB: string;
let adminToken: string;
let fanToken: string;

const tee = { name: 'Label Tee', description: 'Black cotton tee', priceCents: 2500, images: ['/content/covers/cover-01.svg', '/content/covers/cover-02.svg'] };

/** Two processes on one database: the second shares the first one's. */
async function startApp(seed?: (shop: { db: TestDatabase['db']; config: Config }) => Promise<void>): Promise<string> {
  const shop = await startTestApp({ config: { env: { SIGNUP_RATE_LIMIT: '1000' } }, ...(apps[0] ? { database: apps[0].database } : {}), ...(seed ? { seed } : {}) });
  apps.push(shop);
  database = shop.database;
  return shop.baseUrl;
}

function fn(base: string, token?: string) {
  return createFunctionsClient({ baseUrl: base, getAuthToken: () => token });
}

async function tokenFor(base: string, email: string, password: string) {
  const { token } = await createAuthClient({ baseUrl: base, functions: fn(base) }).signIn(email, password);
  return token!;
}

beforeAll(async () => {
  const account = (email: string, username: string) => ({ email, username, name: username, password: 'pass words', confirmPassword: 'pass words', acceptedTerms: true });
  baseA = await startApp(async ({ db, config }) => {
    await createAccount(db, config, account('admin@example.org', 'Admin'), { emailVerified: true, role: 'admin', allowReservedUsername: true });
    await createAccount(db, config, account('fan@example.org', 'Fan'), { emailVerified: true });
  });
  baseB = await startApp();
  adminToken = await tokenFor(baseA, 'admin@example.org', 'pass words');
  fanToken = await tokenFor(baseA, 'fan@example.org', 'pass words');
});

afterAll(async () => {
  // The first owns the database: it closes last.
  for (const shop of apps.reverse()) await shop.close();
});

async function errorOf(promise: Promise<unknown>): Promise<FunctionsError> {
  return (await promise.then(
    () => undefined,
    (e: unknown) => e,
  )) as FunctionsError;
}

describe('release and edit', () => {
  it('refuses every admin action to anonymous callers (401) and non-admins (403), changing nothing', async () => {
    for (const [name, data] of [
      ['releaseBizarreProduct', tee],
      ['editBizarreProduct', { ...tee, id: 'p_x' }],
    ] as const) {
      expect((await errorOf(fn(baseA).call(name, data))).code).toBe('unauthenticated');
      expect((await errorOf(fn(baseA, fanToken).call(name, data))).code).toBe('permission-denied');
    }
    expect(await database.db.select().from(products)).toHaveLength(0);
  });

  it.each([
    [{ ...tee, name: ' ' }, RELEASE_MESSAGES.name],
    [{ ...tee, description: '' }, RELEASE_MESSAGES.description],
    [{ ...tee, priceCents: 0 }, RELEASE_MESSAGES.price],
    [{ ...tee, priceCents: 12.5 }, RELEASE_MESSAGES.price],
    [{ ...tee, priceCents: '2500' }, RELEASE_MESSAGES.price],
    [{ ...tee, images: [] }, RELEASE_MESSAGES.releaseImages],
    [{ ...tee, images: ['javascript:alert(1)'] }, 'Images must be uploaded to the shop first.'],
    [{ ...tee, images: ['//evil.example/x.png'] }, 'Images must be uploaded to the shop first.'],
  ])('refuses a bad release %#', async (data, message) => {
    const error = await errorOf(fn(baseA, adminToken).callUntyped('releaseBizarreProduct', data));
    expect([error.code, error.message.endsWith(message)]).toEqual(['invalid-argument', true]);
    expect(await database.db.select().from(products)).toHaveLength(0);
  });

  it('releases a product that another server process announces live, and edits it', async () => {
    const stream = await openSse(`${baseB}/api/live`);
    await stream.waitFor((e) => e.event === 'ready');
    const released = await fn(baseA, adminToken).call('releaseBizarreProduct', tee);
    expect(released.ok).toBe(true);
    await stream.waitFor((e) => e.event === 'products' && JSON.parse(e.data).id === released.id);

    const list = (await (await fetch(`${baseB}/api/products`)).json()) as { products: Product[] };
    expect(list.products.map((p) => [p.name, p.priceCents, p.images])).toEqual([[tee.name, 2500, tee.images]]);

    const edited = { ...tee, id: released.id, priceCents: 2999, images: [tee.images[1]!, tee.images[0]!] };
    await fn(baseB, adminToken).call('editBizarreProduct', edited);
    await stream.waitFor((e) => e.event === 'products' && e !== stream.events.find((x) => x.event === 'products'));
    const rows = await database.db.select().from(productImages).where(eq(productImages.productId, released.id)).orderBy(productImages.position);
    expect(rows.map((r) => r.url)).toEqual(edited.images);
    const [row] = await database.db.select().from(products).where(eq(products.id, released.id));
    expect(row!.priceCents).toBe(2999);
    await stream.close();
  });

  it('refuses editing an unknown product with not-found', async () => {
    const error = await errorOf(fn(baseA, adminToken).call('editBizarreProduct', { ...tee, id: 'p_missing' }));
    expect([error.code, error.message]).toEqual(['not-found', RELEASE_MESSAGES.notFound]);
  });
});

describe('shop listing', () => {
  it('lists active products by order (highest first) then name, and hides inactive ones from non-admins', async () => {
    const admin = fn(baseA, adminToken);
    const made: Record<string, string> = {};
    for (const [name, order] of [
      ['B hoodie', 5],
      ['A cap', 5],
      ['Z poster', 9],
      ['Hidden', 1],
    ] as const) {
      const { id } = await admin.call('releaseBizarreProduct', { ...tee, name });
      made[name] = id;
      await admin.call('editBizarreProduct', { ...tee, name, id, order, isActive: name !== 'Hidden' });
    }
    const list = (await (await fetch(`${baseA}/api/products`)).json()) as { products: Product[] };
    expect(list.products.map((p) => p.name)).toEqual(['Z poster', 'A cap', 'B hoodie', 'Label Tee']);

    const anonymous = await fetch(`${baseA}/api/products/${made.Hidden}`);
    expect(anonymous.status).toBe(404);
    expect(((await anonymous.json()) as { error: { message: string } }).error.message).toBe(RELEASE_MESSAGES.notFound);
    const fan = await fetch(`${baseA}/api/products/${made.Hidden}`, { headers: { authorization: `Bearer ${fanToken}` } });
    expect(fan.status).toBe(404);
    const admin404 = await fetch(`${baseA}/api/products/${made.Hidden}`, { headers: { authorization: `Bearer ${adminToken}` } });
    expect(((await admin404.json()) as { product: Product }).product.isActive).toBe(false);
  });

  it('sends users only the live topics they may see', async () => {
    const { mayReceive } = await import('../live/live.routes.ts');
    const fanCaller = { userId: 'u1', isAdmin: false };
    expect(mayReceive(null, { topic: 'products' })).toBe(true);
    expect(mayReceive(null, { topic: 'orders', userId: 'u1' })).toBe(false);
    expect(mayReceive(fanCaller, { topic: 'orders', userId: 'u1' })).toBe(true);
    expect(mayReceive(fanCaller, { topic: 'wallet', userId: 'u2' })).toBe(false);
    expect(mayReceive(fanCaller, { topic: 'all-orders' })).toBe(false);
    expect(mayReceive({ userId: 'a', isAdmin: true }, { topic: 'all-orders' })).toBe(true);
  });
});

describe('catalogue cache and HTTP caching', () => {
  const list = async (base: string) => ((await (await fetch(`${base}/api/products`)).json()) as { products: Product[] }).products;

  it('shows an edit on the very next GET of the server that made it (list and product page)', async () => {
    const admin = fn(baseA, adminToken);
    const { id } = await admin.call('releaseBizarreProduct', { ...tee, name: 'Cached Cap' });
    expect((await list(baseA)).find((p) => p.id === id)?.priceCents).toBe(2500);
    expect((await (await fetch(`${baseA}/api/products/${id}`)).json()) as { product: Product }).toMatchObject({ product: { priceCents: 2500 } });

    await admin.call('editBizarreProduct', { ...tee, id, name: 'Cached Cap', priceCents: 3100 });
    expect((await list(baseA)).find((p) => p.id === id)?.priceCents).toBe(3100);
    expect((await (await fetch(`${baseA}/api/products/${id}`)).json()) as { product: Product }).toMatchObject({ product: { priceCents: 3100 } });

    await admin.call('editBizarreProduct', { ...tee, id, name: 'Cached Cap', isActive: false });
    expect((await list(baseA)).some((p) => p.id === id)).toBe(false);
    expect((await fetch(`${baseA}/api/products/${id}`)).status).toBe(404);
  });

  it('shows an edit made through another server once its NOTIFY arrives', async () => {
    // The stream is open before the release, so that the release's NOTIFY (same product id)
    // is heard first and cannot be taken for the edit's, however late it is delivered.
    const stream = await openSse(`${baseB}/api/live`);
    await stream.waitFor((e) => e.event === 'ready');
    const heardFor = (id: string) => stream.events.filter((e) => e.event === 'products' && JSON.parse(e.data).id === id).length;
    const { id } = await fn(baseA, adminToken).call('releaseBizarreProduct', { ...tee, name: 'Poster B' });
    await stream.waitFor(() => heardFor(id) >= 1);
    expect((await list(baseB)).find((p) => p.id === id)?.name).toBe('Poster B'); // B's copy now has it

    await fn(baseA, adminToken).call('editBizarreProduct', { ...tee, id, name: 'Poster B, signed' });
    // The same NOTIFY reaches B's cache before B's SSE clients: once they hear it, B's next GET has it.
    await stream.waitFor(() => heardFor(id) >= 2);
    expect((await list(baseB)).find((p) => p.id === id)?.name).toBe('Poster B, signed');
    await stream.close();
  });

  it('answers 304 to a client holding the current ETag, and a new ETag after a change', async () => {
    const first = await fetch(`${baseA}/api/products`);
    await first.arrayBuffer();
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^W\/".+"$/);
    expect(first.headers.get('cache-control')).toBe('no-cache');
    const again = await fetch(`${baseA}/api/products`, { headers: { 'if-none-match': etag } });
    expect([again.status, await again.text()]).toEqual([304, '']);

    await fn(baseA, adminToken).call('releaseBizarreProduct', { ...tee, name: 'Fresh Release' });
    const changed = await fetch(`${baseA}/api/products`, { headers: { 'if-none-match': etag } });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
    expect(((await changed.json()) as { products: Product[] }).products.some((p) => p.name === 'Fresh Release')).toBe(true);
  });

  it('sends the list compressed to clients that accept it, the same JSON as uncompressed', async () => {
    const plain = await fetch(`${baseA}/api/products`, { headers: { 'accept-encoding': 'identity' } });
    const body = await plain.text();
    expect(plain.headers.get('content-encoding')).toBeNull();
    for (const encoding of ['br', 'gzip']) {
      // fetch undoes the encoding it asked for, so the text must equal the plain one.
      const packed = await fetch(`${baseA}/api/products`, { headers: { 'accept-encoding': encoding } });
      expect(packed.headers.get('content-encoding')).toBe(encoding);
      expect(packed.headers.get('vary')).toMatch(/accept-encoding/i);
      expect(await packed.text()).toBe(body);
    }
  });
});

describe('shop pages, search and categories (issue 17)', () => {
  type Page = { products: Product[]; next: string | null };
  const get = async (query: string) => {
    const response = await fetch(`${baseA}/api/products${query}`);
    return { status: response.status, body: (await response.json()) as Page & { error?: { message: string } } };
  };
  /** Every page from `query`, following `next`. */
  const walk = async (query: string) => {
    const names: string[] = [];
    let page = (await get(query)).body;
    names.push(...page.products.map((p) => p.name));
    for (let pages = 0; page.next && pages < 100; pages += 1) {
      page = (await get(`${query}${query ? '&' : '?'}after=${page.next}`)).body;
      names.push(...page.products.map((p) => p.name));
    }
    return names;
  };

  beforeAll(async () => {
    const admin = fn(baseA, adminToken);
    for (let i = 0; i < 30; i += 1) {
      const category = i % 3 === 0 ? 'music' : i % 3 === 1 ? 'bundles' : 'merch';
      const name = `Zebra ${String(i).padStart(2, '0')}${i === 7 ? ' 100% cotton' : ''}${i === 8 ? ' snake_case' : ''}`;
      const { id } = await admin.call('releaseBizarreProduct', { ...tee, name, category });
      // Equal orders, so the name and id break the ties across a page boundary.
      if (i % 2 === 0) await admin.call('editBizarreProduct', { ...tee, id, name, category, order: 3 });
    }
  });

  it('pages through every active product once, in shop order, the first page from the cache', async () => {
    const { listActiveProducts } = await import('./catalog.service.ts');
    const all = (await listActiveProducts(database.db)).map((p) => p.name);
    expect(all.length).toBeGreaterThan(24);
    const first = await get('');
    expect(first.body.products).toHaveLength(24);
    expect(first.body.next).toEqual(expect.any(String));
    expect(await walk('')).toEqual(all);
    expect(await walk('?limit=7')).toEqual(all);
  });

  it('filters by category, first page and later pages alike', async () => {
    const music = await walk('?category=music&limit=4');
    expect(music.filter((name) => name.startsWith('Zebra'))).toHaveLength(10);
    const { body } = await get('?category=music');
    expect(body.products.every((p) => p.category === 'music')).toBe(true);
    expect((await walk('?category=bundles')).filter((name) => name.startsWith('Zebra'))).toHaveLength(10);
    // An empty category parameter (a shared URL's) means all.
    expect(await walk('?category=&q=')).toEqual(await walk(''));
  });

  it('searches names and descriptions in any case, taking % and _ literally', async () => {
    expect(await walk('?q=ZEBRA&limit=5')).toHaveLength(30);
    expect(await walk('?q=zebra%2005')).toEqual(['Zebra 05']);
    expect(await walk(`?q=${encodeURIComponent('100%')}`)).toEqual(['Zebra 07 100% cotton']);
    expect(await walk(`?q=${encodeURIComponent('e_c')}`)).toEqual(['Zebra 08 snake_case']);
    expect(await walk('?q=zebra&category=music')).toHaveLength(10);
    expect((await walk('?q=black%20cotton')).length).toBeGreaterThan(30); // the description
    expect(await walk('?q=no%20such%20thing')).toEqual([]);
  });

  it('refuses a bad query with a sentence, never a 500', async () => {
    for (const [query, message] of [
      ['?category=Vinyl!', 'The category must be one of the shop’s categories.'],
      ['?limit=0', 'The page size must be a whole number from 1 to 60.'],
      ['?limit=61', 'The page size must be a whole number from 1 to 60.'],
      ['?limit=abc', 'The page size must be a whole number from 1 to 60.'],
      ['?after=not-a-cursor', 'That page cursor is not valid.'],
      [`?after=${Buffer.from('[1,"a"]').toString('base64url')}`, 'That page cursor is not valid.'],
      [`?after=${Buffer.from(JSON.stringify([1, 'a\u0000', 'p'])).toString('base64url')}`, 'That page cursor is not valid.'],
      [`?after=${Buffer.from(JSON.stringify([2 ** 40, 'a', 'p'])).toString('base64url')}`, 'That page cursor is not valid.'],
      [`?q=${'x'.repeat(101)}`, 'The search must be at most 100 characters.'],
      ['?q=a%00b', 'The search cannot contain a NUL character.'],
      ['?q=a&q=b', 'The search must be text.'],
      ['?sort=price', 'Unknown parameter: the shop list takes q, category, after and limit.'],
    ] as const) {
      const { status, body } = await get(query);
      expect([query, status, body.error?.message]).toEqual([query, 400, message]);
    }
  });
});
