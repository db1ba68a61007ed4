import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATEGORY_MESSAGES } from '@storefront/domain/catalog.ts';
import type { FunctionsError } from '@storefront/sdk/callable.ts';
import { startTestApp, type TestApp } from '../../test/app.ts';
import { auditOf } from '../audit/audit.service.ts';

/** The shop's categories managed in the console (issue 29 item 3, decision 046). */
let testApp: TestApp;
let admin: ReturnType<TestApp['functions']>;
let visitor: ReturnType<TestApp['functions']>;
const product = { description: 'A product', priceCents: 1500, images: ['/content/covers/cover-01.svg'] };

beforeAll(async () => {
  testApp = await startTestApp({ config: { env: { SIGNUP_RATE_LIMIT: '1000' } } });
  const adminId = await testApp.account('curator');
  await testApp.db.execute(sql`UPDATE "user" SET role = 'admin' WHERE id = ${adminId}`);
  const token = await testApp.signIn('curator@example.org');
  admin = testApp.functions(() => token);
  visitor = testApp.functions();
});

afterAll(async () => {
  await testApp?.close();
});

async function errorOf(promise: Promise<unknown>): Promise<FunctionsError> {
  return (await promise.then(
    () => undefined,
    (e: unknown) => e,
  )) as FunctionsError;
}

const names = async () => (await visitor.call('listCategories', null)).categories.map((category) => category.name);

describe('categories', () => {
  it('starts with the three the shop had, in order, for anyone', async () => {
    expect((await visitor.call('listCategories', null)).categories).toEqual([
      { id: 'merch', name: 'Merch' },
      { id: 'music', name: 'Music' },
      { id: 'bundles', name: 'Bundles' },
    ]);
  });

  it('adds, renames, orders and removes an empty one, each audited; a release and an edit choose one', async () => {
    const { id } = await admin.call('createCategory', { name: 'Vinyl & CDs' });
    expect(id).toBe('vinyl-cds');
    expect(await names()).toEqual(['Merch', 'Music', 'Bundles', 'Vinyl & CDs']);
    expect((await errorOf(admin.call('createCategory', { name: 'vinyl & cds' }))).message).toBe(CATEGORY_MESSAGES.nameTaken);

    await admin.call('renameCategory', { id, name: 'Records' });
    await admin.call('moveCategory', { id, position: 0 });
    expect(await names()).toEqual(['Records', 'Merch', 'Music', 'Bundles']);
    // The id (the shop's address) stays: a renamed category keeps its links.
    expect((await visitor.call('listCategories', null)).categories[0]).toEqual({ id: 'vinyl-cds', name: 'Records' });

    const { id: productId } = await admin.call('releaseBizarreProduct', { ...product, name: 'Debut LP', category: id });
    const shop = await (await fetch(`${testApp.baseUrl}/api/products?category=${id}`)).json();
    expect((shop as { products: { id: string; category: string }[] }).products.map((row) => [row.id, row.category])).toEqual([[productId, id]]);

    // Not removable while a product (even a withdrawn one) is in it; then moved, it is.
    expect((await errorOf(admin.call('deleteCategory', { id }))).message).toBe(CATEGORY_MESSAGES.notEmpty(1));
    await admin.call('setProductActive', { id: productId, isActive: false });
    expect((await errorOf(admin.call('deleteCategory', { id }))).message).toBe(CATEGORY_MESSAGES.notEmpty(1));
    await admin.call('editBizarreProduct', { ...product, id: productId, name: 'Debut LP', category: 'music' });
    await admin.call('deleteCategory', { id });
    expect(await names()).toEqual(['Merch', 'Music', 'Bundles']);

    expect((await auditOf(testApp.db, id)).map((row) => row.action)).toEqual(['category.create', 'category.rename', 'category.move', 'category.delete']);
  });

  it('refuses an unknown category on a release or an edit, the default one’s removal, and callers who are not admins', async () => {
    expect((await errorOf(admin.call('releaseBizarreProduct', { ...product, name: 'Lost', category: 'nowhere' }))).message).toBe(CATEGORY_MESSAGES.notFound);
    expect((await errorOf(admin.call('deleteCategory', { id: 'merch' }))).message).toBe(CATEGORY_MESSAGES.isDefault);
    expect((await errorOf(admin.call('deleteCategory', { id: 'nowhere' }))).code).toBe('not-found');
    expect((await errorOf(admin.call('createCategory', { name: '   ' }))).message).toBe(CATEGORY_MESSAGES.name);
    expect((await errorOf(visitor.call('createCategory', { name: 'Posters' }))).code).toBe('unauthenticated');
    expect(await names()).toEqual(['Merch', 'Music', 'Bundles']);
  });
});
