import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Product } from '@storefront/domain/catalog.ts';
import type { FunctionInput, FunctionName } from '@storefront/domain/contracts/index.ts';
import { CONSOLE_MESSAGES } from '@storefront/domain/console.ts';
import { createAuthClient } from '@storefront/sdk/auth.ts';
import { createFunctionsClient, type FunctionsError } from '@storefront/sdk/callable.ts';
import { startTestApp, type TestApp } from '../../test/app.ts';
import type { TestDatabase } from '../../test/database.ts';
import { createAccount, makeAdmin } from '../accounts/accounts.service.ts';
import type { Config } from '../config.ts';
import { releaseProduct } from '../catalog/catalog.service.ts';
import { adminAudit, products, users } from '../db/schema/index.ts';
import { runTransaction } from '../db/transaction.ts';
import { insertOrder } from '../orders/orders.service.ts';
import { auditOf } from '../audit/audit.service.ts';

let testApp: TestApp;
let database: TestDatabase;
let config: Config;
let base: string;
let adminToken: string;
let fanToken: string;

const tee = { name: 'Console Tee', description: 'Black cotton tee', priceCents: 2500, images: ['/content/covers/cover-01.svg'] };
const account = (email: string, username: string) => ({ email, username, name: username, password: 'pass words', confirmPassword: 'pass words', acceptedTerms: true });

const fn = (token?: string) => createFunctionsClient({ baseUrl: base, getAuthToken: () => token });
const asAdmin = <N extends FunctionName>(name: N, data: FunctionInput<N>) => fn(adminToken).call(name, data);
async function tokenFor(email: string) {
  const { token } = await createAuthClient({ baseUrl: base, functions: fn() }).signIn(email, 'pass words');
  return token!;
}
async function errorOf(promise: Promise<unknown>): Promise<FunctionsError> {
  return (await promise.then(
    () => undefined,
    (e: unknown) => e,
  )) as FunctionsError;
}
async function shop(): Promise<Product[]> {
  const response = await fetch(`${base}/api/products`);
  return ((await response.json()) as { products: Product[] }).products;
}

beforeAll(async () => {
  testApp = await startTestApp({
    config: { env: { SIGNUP_RATE_LIMIT: '1000', ADMIN_EMAILS: 'owner@example.org' } },
    async seed({ db, config }) {
      await createAccount(db, config, account('admin@example.org', 'Admin'), { emailVerified: true, role: 'admin', allowReservedUsername: true });
      await createAccount(db, config, account('fan@example.org', 'Fan'), { emailVerified: true });
      await createAccount(db, config, account('owner@example.org', 'Boss'), { emailVerified: true });
      await createAccount(db, config, account('fresh@example.org', 'Fresh'));
    },
  });
  ({ database, config, baseUrl: base } = testApp);
  adminToken = await tokenFor('admin@example.org');
  fanToken = await tokenFor('fan@example.org');
});

afterAll(async () => {
  await testApp?.close();
});

describe('the audit log', () => {
  it('records a release and an edit with who, what, before and after, in the action’s transaction', async () => {
    const { id } = await asAdmin('releaseBizarreProduct', tee);
    await asAdmin('editBizarreProduct', { id, ...tee, priceCents: 3000 });
    const rows = await auditOf(database.db, id);
    expect(rows.map((row) => [row.action, row.actorLabel])).toEqual([
      ['product.release', 'admin@example.org'],
      ['product.edit', 'admin@example.org'],
    ]);
    expect(rows[1]!.before).toMatchObject({ priceCents: 2500, name: 'Console Tee' });
    expect(rows[1]!.after).toMatchObject({ priceCents: 3000 });

    // A refused action writes no row.
    const before = (await database.db.select().from(adminAudit)).length;
    expect((await errorOf(asAdmin('editBizarreProduct', { id: 'p_missing', ...tee }))).code).toBe('not-found');
    expect((await database.db.select().from(adminAudit)).length).toBe(before);
  });

  it('records make-admin from the command line with the actor cli', async () => {
    await createAccount(database.db, config, account('cli@example.org', 'Clie'), { emailVerified: true });
    expect(await makeAdmin(database.db, 'cli@example.org')).toBe(true);
    const [user] = await database.db.select().from(users).where(eq(users.email, 'cli@example.org'));
    const rows = await auditOf(database.db, user!.id);
    expect(rows.map((row) => [row.action, row.actorLabel, row.actorId])).toEqual([['admin.grant', 'cli', null]]);
  });

  it('records Mark Fulfilled', async () => {
    const productId = await releaseProduct(database.db, tee);
    const [fan] = await database.db.select().from(users).where(eq(users.email, 'fan@example.org'));
    const order = await runTransaction(database.db, (tx) =>
      insertOrder(tx, {
        userId: fan!.id,
        checkoutId: 'console-fulfil',
        paymentIntentId: 'wallet_console_fulfil',
        items: [{ id: productId, name: tee.name, qty: 1, unitCents: 2500 }],
        subtotalCents: 2500,
        shippingCents: 999,
        taxCents: 324,
        walletAppliedCents: 3823,
        chargedCents: 0,
        contact: { name: 'Fan', email: 'fan@example.org', phone: '' },
        shipping: { name: 'Fan', line1: '1 Main St', city: 'Oslo', country: 'NO' },
      }),
    );
    await asAdmin('markOrderFulfilled', { orderId: order.id });
    await asAdmin('markOrderFulfilled', { orderId: order.id });
    const rows = await auditOf(database.db, order.id);
    expect(rows.map((row) => row.action)).toEqual(['order.fulfil']);
    expect(rows[0]!.after).toEqual({ orderFulfilled: true, orderStatus: 'shipped' });
  });

  it('lists the activity newest first, a page at a time', async () => {
    const first = await asAdmin('listAdminActivity', { limit: 2 });
    expect(first.items).toHaveLength(2);
    expect(first.items[0]!.action).toBe('order.fulfil');
    expect(Number(first.items[0]!.id)).toBeGreaterThan(Number(first.items[1]!.id));
    const second = await asAdmin('listAdminActivity', { limit: 2, after: first.next });
    expect(Number(second.items[0]!.id)).toBeLessThan(Number(first.items[1]!.id));
    expect((await errorOf(fn(fanToken).call('listAdminActivity', null))).code).toBe('permission-denied');
  });
});

describe('products', () => {
  it('withdraws and restores a product: gone from the shop, then back, each audited', async () => {
    const id = await releaseProduct(database.db, { ...tee, name: 'Withdrawn Tee' });
    await asAdmin('setProductActive', { id, isActive: false });
    expect((await shop()).map((product) => product.id)).not.toContain(id);
    const all = await asAdmin('listAllProducts', null);
    expect(all.products.find((product) => product.id === id)?.isActive).toBe(false);
    await asAdmin('setProductActive', { id, isActive: true });
    expect((await shop()).map((product) => product.id)).toContain(id);
    expect((await auditOf(database.db, id)).map((row) => row.action)).toEqual(['product.withdraw', 'product.restore']);
  });

  it('puts a new release first and moves products to any place', async () => {
    const { id: a } = await asAdmin('releaseBizarreProduct', { ...tee, name: 'Zed first' });
    expect((await shop())[0]!.id).toBe(a);
    const last = (await shop()).length - 1;
    await asAdmin('moveProduct', { id: a, position: last });
    let ids = (await shop()).map((product) => product.id);
    expect(ids.at(-1)).toBe(a);
    await asAdmin('moveProduct', { id: a, position: 1 });
    ids = (await shop()).map((product) => product.id);
    expect(ids.indexOf(a)).toBe(1);
    const rows = await auditOf(database.db, a);
    expect(rows.at(-1)!.after).toMatchObject({ position: 1 });
  });

  it('deletes a product never ordered, and refuses one that was ordered; the console list says which can go', async () => {
    const unsold = await releaseProduct(database.db, { ...tee, name: 'Unsold' });
    const blockedOf = async (id: string) => (await asAdmin('listAllProducts', null)).products.find((product) => product.id === id)?.deleteBlocked;
    expect(await blockedOf(unsold)).toBeNull();
    await asAdmin('deleteProduct', { id: unsold });
    expect(await database.db.select().from(products).where(eq(products.id, unsold))).toEqual([]);
    expect((await auditOf(database.db, unsold)).map((row) => row.action)).toEqual(['product.delete']);

    const [fan] = await database.db.select().from(users).where(eq(users.email, 'fan@example.org'));
    const sold = await releaseProduct(database.db, { ...tee, name: 'Sold' });
    await runTransaction(database.db, (tx) =>
      insertOrder(tx, {
        userId: fan!.id,
        checkoutId: 'console-sold',
        paymentIntentId: 'wallet_console_sold',
        items: [{ id: sold, name: 'Sold', qty: 1, unitCents: 2500 }],
        subtotalCents: 2500,
        shippingCents: 999,
        taxCents: 324,
        walletAppliedCents: 3823,
        chargedCents: 0,
        contact: { name: 'Fan', email: 'fan@example.org', phone: '' },
        shipping: { name: 'Fan' },
      }),
    );
    expect(await blockedOf(sold)).toBe('ordered');
    const refused = await errorOf(asAdmin('deleteProduct', { id: sold }));
    expect(refused.message).toBe(CONSOLE_MESSAGES.productOrdered);
    expect(await database.db.select().from(products).where(eq(products.id, sold))).toHaveLength(1);
  });
});

describe('admins', () => {
  it('grants and revokes admin; an ADMIN_EMAILS admin and oneself cannot be revoked', async () => {
    expect((await errorOf(fn(fanToken).call('listAdmins', null))).code).toBe('permission-denied');
    await asAdmin('setAdmin', { email: 'Fan@Example.org', isAdmin: true });
    const listed = await fn(fanToken).call('listAdmins', null);
    expect(listed.admins.map((admin) => [admin.email, admin.fromSetting])).toEqual(
      expect.arrayContaining([
        ['fan@example.org', false],
        ['owner@example.org', true],
      ]),
    );
    await asAdmin('setAdmin', { email: 'fan@example.org', isAdmin: false });
    expect((await errorOf(fn(fanToken).call('listAdmins', null))).code).toBe('permission-denied');

    expect((await errorOf(asAdmin('setAdmin', { email: 'owner@example.org', isAdmin: false }))).message).toBe(CONSOLE_MESSAGES.adminFromSetting);
    expect((await errorOf(asAdmin('setAdmin', { email: 'admin@example.org', isAdmin: false }))).message).toBe(CONSOLE_MESSAGES.notYourself);
    expect((await errorOf(asAdmin('setAdmin', { email: 'nobody@example.org', isAdmin: true }))).message).toBe(CONSOLE_MESSAGES.accountNotFound);
    expect((await errorOf(asAdmin('setAdmin', { email: 'fresh@example.org', isAdmin: true }))).message).toBe(CONSOLE_MESSAGES.accountNotVerified);

    const [fan] = await database.db.select().from(users).where(eq(users.email, 'fan@example.org'));
    expect((await auditOf(database.db, fan!.id)).map((row) => [row.action, row.actorLabel])).toEqual([
      ['admin.grant', 'admin@example.org'],
      ['admin.revoke', 'admin@example.org'],
    ]);
  });
});
