import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FunctionsError } from '@storefront/sdk/callable.ts';
import { startTestApp, TEST_PASSWORD, type TestApp } from '../../test/app.ts';
import { startSmtpPeer } from '../../test/smtp.ts';
import { getProduct, releaseProduct } from '../catalog/catalog.service.ts';
import { WISHLIST_MESSAGES } from './wishlist.service.ts';

/**
 * The wishlist (issue 37 part 5, decision 076) on a real Postgres and SMTP peer: hearts are the
 * fan's own, twice is once; /wishlist's states and prices; an item back in stock is told once to
 * a consenting fan (with RFC 8058's headers), never to one without consent; deletion and export.
 */
let shop: TestApp;
let smtp: Awaited<ReturnType<typeof startSmtpPeer>>;
let adminToken = '';
const tokens: Record<string, string> = {};

beforeAll(async () => {
  smtp = await startSmtpPeer();
  shop = await startTestApp({ config: { env: { SMTP_URL: smtp.url, SIGNUP_RATE_LIMIT: '1000', NOTIFY_ROUND_MS: '600000' } } });
  await shop.account('boss');
  await shop.db.execute(`UPDATE "user" SET role = 'admin' WHERE email = 'boss@example.org'`);
  adminToken = await shop.signIn('boss@example.org');
  for (const name of ['yes', 'no', 'gone']) {
    await shop.account(name);
    tokens[name] = await shop.signIn(`${name}@example.org`);
  }
  await as('yes').call('setMyConsent', { consented: true, page: '/account' });
});

afterAll(async () => {
  await shop?.close();
  await smtp?.close();
});

const as = (name: string) => shop.functions(() => tokens[name]);
const admin = () => shop.functions(() => adminToken);

let serial = 0;
async function tee(stock: number, options: { releaseDate?: string } = {}): Promise<{ productId: string; variantId: string; name: string }> {
  serial += 1;
  const name = `Wish Tee ${serial}`;
  const productId = await releaseProduct(shop.db, {
    name,
    description: 'Tee',
    priceCents: 2400,
    images: ['/content/covers/cover-01.svg'],
    ...(options.releaseDate ? { releaseDate: options.releaseDate } : {}),
    variants: [{ options: [], sku: `WT-${serial}`, priceCents: null, stock, perCustomerLimit: null }],
  });
  const product = await getProduct(shop.db, productId, { includeInactive: true });
  return { productId, variantId: product.variants[0]!.id, name };
}

const backMails = (to: string, name: string) => smtp.mailsTo(to).filter((mail) => mail.decoded.includes(`${name} from your wishlist`));

async function waitFor(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('the wishlist', () => {
  it('hearts are the fan’s own; twice is once; /wishlist shows state and price; un-hearting removes', async () => {
    const inStock = await tee(5);
    const soldOut = await tee(0);
    await as('no').call('setWishlisted', { productId: inStock.productId, wishlisted: true });
    await as('no').call('setWishlisted', { productId: inStock.productId, wishlisted: true });
    const list = await as('no').call('setWishlisted', { productId: soldOut.productId, wishlisted: true });
    expect(list.items).toEqual([
      expect.objectContaining({ productId: soldOut.productId, name: soldOut.name, state: 'sold-out', priceCents: 2400 }),
      expect.objectContaining({ productId: inStock.productId, state: 'in-stock', priceCents: 2400 }),
    ]);
    // Another fan's list is their own.
    expect((await as('yes').call('listWishlist', null)).items.map((item) => item.productId)).not.toContain(inStock.productId);
    const after = await as('no').call('setWishlisted', { productId: inStock.productId, wishlisted: false });
    expect(after.items.map((item) => item.productId)).toEqual([soldOut.productId]);
  });

  it('refuses a product not in the shop', async () => {
    let error: FunctionsError | undefined;
    try {
      await as('no').call('setWishlisted', { productId: 'p_nothing', wishlisted: true });
    } catch (caught) {
      error = caught as FunctionsError;
    }
    expect(error?.message).toBe(WISHLIST_MESSAGES.noProduct);
  });

  it('an item back in stock is told once to a consenting fan, with List-Unsubscribe; never to a fan without consent', async () => {
    const item = await tee(0);
    await as('yes').call('setWishlisted', { productId: item.productId, wishlisted: true });
    await as('no').call('setWishlisted', { productId: item.productId, wishlisted: true });
    const { rows: seen } = await shop.database.pool.query('SELECT seen_available FROM wishlist_item WHERE product_id = $1', [item.productId]);
    expect(seen).toEqual([{ seen_available: false }, { seen_available: false }]);
    await admin().call('setVariantStock', { variantId: item.variantId, stock: 3, reason: 'restock' });
    await waitFor(() => backMails('yes@example.org', item.name).length === 1, 'the back-in-stock mail');
    const mail = backMails('yes@example.org', item.name)[0]!;
    expect(mail.decoded).toContain(`${shop.baseUrl}/product/${item.productId}`);
    const headers = mail.raw.replace(/\r\n[ \t]+/g, ' ');
    expect(headers).toMatch(/List-Unsubscribe: +<http[^>]+\/news\/leave\?token=/);
    expect(headers).toContain('List-Unsubscribe-Post: List-Unsubscribe=One-Click');
    // Sold out and back again: told once only.
    await admin().call('setVariantStock', { variantId: item.variantId, stock: 0, reason: 'count' });
    await admin().call('setVariantStock', { variantId: item.variantId, stock: 2, reason: 'restock' });
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect(backMails('yes@example.org', item.name)).toHaveLength(1);
    expect(backMails('no@example.org', item.name)).toHaveLength(0);
  });

  it('a hidden item opening for preorder is told as a preorder', async () => {
    const item = await tee(10, { releaseDate: '2099-01-01' });
    await admin().call('setProductActive', { id: item.productId, isActive: false });
    // Only products in the shop can be hearted: heart it while shown, then the label hides it and shows it again.
    await admin().call('setProductActive', { id: item.productId, isActive: true });
    await as('yes').call('setWishlisted', { productId: item.productId, wishlisted: true });
    expect((await as('yes').call('listWishlist', null)).items.find((entry) => entry.productId === item.productId)?.state).toBe('preorder');
    await admin().call('setProductActive', { id: item.productId, isActive: false });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await admin().call('setProductActive', { id: item.productId, isActive: true });
    await waitFor(() => smtp.mailsTo('yes@example.org').some((mail) => mail.decoded.includes(`${item.name} from your wishlist is open for preorder`)), 'the preorder mail');
  });

  it('the export lists the wishlist; deleting the account removes it', async () => {
    const item = await tee(1);
    await as('gone').call('setWishlisted', { productId: item.productId, wishlisted: true });
    const exported = await as('gone').call('exportMyData', null);
    expect(exported.wishlist).toEqual([expect.objectContaining({ productId: item.productId, name: item.name, toldAt: null })]);
    await as('gone').call('deleteAccount', { password: TEST_PASSWORD, confirm: 'DELETE' });
    const { rows } = await shop.database.pool.query('SELECT count(*)::int AS n FROM wishlist_item w JOIN "user" u ON u.id = w.user_id WHERE u.username = $1', ['gone']);
    expect(rows[0]).toEqual({ n: 0 });
  });
});
