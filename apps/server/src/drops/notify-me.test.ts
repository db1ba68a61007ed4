import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DROP_MESSAGES } from '@storefront/domain/drops.ts';
import type { FunctionsError } from '@storefront/sdk/callable.ts';
import { startTestApp, TEST_PASSWORD, type TestApp } from '../../test/app.ts';
import { startSmtpPeer, type ReceivedMail } from '../../test/smtp.ts';
import { saveBundle } from '../catalog/bundles.service.ts';
import { getProduct, releaseProduct } from '../catalog/catalog.service.ts';
import { variantWaitlist } from '../db/schema/index.ts';

/**
 * Notify me (issue 37 part 4, decision 076) on a real Postgres and a real SMTP peer: the same
 * list as the waitlist; signed out by a mailed link (one entry however often asked, rate
 * limited); signed in in one click, adopting the address's entry; a restock tells fans in ask
 * order, one per unit, once each, with a link to the product and one to leave; deletion and
 * the export.
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
  for (const name of ['ada', 'bo', 'cy', 'gone']) {
    await shop.account(name);
    tokens[name] = await shop.signIn(`${name}@example.org`);
  }
});

afterAll(async () => {
  await shop?.close();
  await smtp?.close();
});

const as = (name: string) => shop.functions(() => tokens[name]);
const admin = () => shop.functions(() => adminToken);
const anonymous = () => shop.functions();

let serial = 0;
async function soldOutTee(): Promise<{ productId: string; variantId: string }> {
  serial += 1;
  const productId = await releaseProduct(shop.db, {
    name: `Notify Tee ${serial}`,
    description: 'Tee',
    priceCents: 2000,
    images: ['/content/covers/cover-01.svg'],
    variants: [{ options: [], sku: `NT-${serial}`, priceCents: null, stock: 0, perCustomerLimit: null }],
  });
  const product = await getProduct(shop.db, productId, { includeInactive: false });
  return { productId, variantId: product.variants[0]!.id };
}

function linkIn(mail: ReceivedMail, path: string): string {
  const match = new RegExp(`https?://[^\\s"<>]+${path.replaceAll('/', '\\/')}[^\\s"<>]*`).exec(mail.decoded);
  if (!match) throw new Error(`No ${path} link in:\n${mail.decoded}`);
  return match[0].replaceAll('&#38;', '&').replaceAll('&amp;', '&');
}
const tokenOf = (link: string) => new URL(link).searchParams.get('token')!;

async function errorOf(promise: Promise<unknown>): Promise<FunctionsError> {
  try {
    await promise;
  } catch (error) {
    return error as FunctionsError;
  }
  throw new Error('expected a refusal');
}

const entries = (variantId: string) => shop.db.select().from(variantWaitlist).where(eq(variantWaitlist.variantId, variantId)).orderBy(variantWaitlist.seq);

async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('notify me signed out', () => {
  it('mails a confirmation link; confirming puts the address on the list once, however often it asked', async () => {
    const tee = await soldOutTee();
    await anonymous().call('notifyMeByEmail', { variantId: tee.variantId, email: ' Walker@Example.org ' });
    expect(await entries(tee.variantId)).toEqual([expect.objectContaining({ email: 'walker@example.org', userId: null, status: 'pending' })]);
    const mail = await smtp.waitForText('walker@example.org', 'Confirm: tell me when');
    const confirm = linkIn(mail, '/notify/confirm');
    const answer = await anonymous().call('confirmNotifyMe', { token: tokenOf(confirm) });
    expect(answer).toEqual({ productId: tee.productId, name: `Notify Tee ${serial}` });
    expect(await entries(tee.variantId)).toEqual([expect.objectContaining({ email: 'walker@example.org', status: 'waiting' })]);
    // Confirming again, and asking again while on the list: still one entry, and no second mail.
    await anonymous().call('confirmNotifyMe', { token: tokenOf(confirm) });
    await anonymous().call('notifyMeByEmail', { variantId: tee.variantId, email: 'WALKER@example.org' });
    expect(await entries(tee.variantId)).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(smtp.mailsTo('walker@example.org')).toHaveLength(1);
  });

  it('refuses a forged, altered or expired link and puts nobody on the list', async () => {
    const tee = await soldOutTee();
    await anonymous().call('notifyMeByEmail', { variantId: tee.variantId, email: 'forger@example.org' });
    const token = tokenOf(linkIn(await smtp.waitForText('forger@example.org', 'Confirm'), '/notify/confirm'));
    const [variant, , expiry, signature] = token.split('.');
    const other = `${variant}.${Buffer.from('victim@example.org').toString('base64url')}.${expiry}.${signature}`;
    for (const bad of [other, `${token.slice(0, -2)}xx`, `${variant}.${token.split('.')[1]}.1000.${signature}`]) {
      const error = await errorOf(anonymous().call('confirmNotifyMe', { token: bad }));
      expect(error.message).toBe(DROP_MESSAGES.notifyLinkInvalid);
    }
    expect((await entries(tee.variantId)).map((row) => row.status)).toEqual(['pending']);
  });

  it('is limited per address asked for and per client address', async () => {
    const tee = await soldOutTee();
    for (let i = 0; i < 3; i += 1) await anonymous().call('notifyMeByEmail', { variantId: tee.variantId, email: 'flood@example.org' });
    const error = await errorOf(anonymous().call('notifyMeByEmail', { variantId: tee.variantId, email: 'flood@example.org' }));
    expect(error.code).toBe('resource-exhausted');
  });

  it('refuses an unknown variant and an unlimited one, and a bad address, with their sentences', async () => {
    const unknown = await errorOf(anonymous().call('notifyMeByEmail', { variantId: 'no-such-variant', email: 'x@example.org' }));
    expect(unknown.message).toBe(DROP_MESSAGES.unknownVariant);
    const bad = await errorOf(anonymous().call('notifyMeByEmail', { variantId: 'no-such-variant', email: 'not an address' }));
    expect(bad.code).toBe('invalid-argument');
  });
});

describe('a restock tells fans in the order they asked', () => {
  it('one per unit, once each, with a product link and a leave link that works signed out; signed in and signed out are one list', async () => {
    const tee = await soldOutTee();
    // In ask order: ada (signed in), an address, bo (signed in), cy (by her account's address, then signed in: one entry).
    await as('ada').call('joinWaitlist', { variantId: tee.variantId });
    await anonymous().call('notifyMeByEmail', { variantId: tee.variantId, email: 'guest@example.org' });
    await anonymous().call('confirmNotifyMe', { token: tokenOf(linkIn(await smtp.waitForText('guest@example.org', 'Confirm'), '/notify/confirm')) });
    await as('bo').call('joinWaitlist', { variantId: tee.variantId });
    await anonymous().call('notifyMeByEmail', { variantId: tee.variantId, email: 'cy@example.org' });
    await anonymous().call('confirmNotifyMe', { token: tokenOf(linkIn(await smtp.waitForText('cy@example.org', 'Confirm'), '/notify/confirm')) });
    await as('cy').call('joinWaitlist', { variantId: tee.variantId });
    const listed = await entries(tee.variantId);
    expect(listed.map((row) => row.email ?? row.userId)).toEqual([expect.any(String), 'guest@example.org', expect.any(String), expect.any(String)]);
    expect(listed.filter((row) => row.email === 'cy@example.org')).toHaveLength(0);
    expect(listed.every((row) => row.status === 'waiting')).toBe(true);

    // Two units back: ada and the guest, in that order; the live stock event starts the round (the timer is 10 minutes).
    await admin().call('setVariantStock', { variantId: tee.variantId, stock: 2, reason: 'restock' });
    const told = await waitFor(
      () => entries(tee.variantId),
      (rows) => rows.filter((row) => row.status === 'offered').length === 2,
      'two offers',
    );
    expect(told.map((row) => row.status)).toEqual(['offered', 'offered', 'waiting', 'waiting']);
    const adaMail = await smtp.waitForText('ada@example.org', 'Leave this list');
    expect(adaMail.decoded).toContain(`${shop.baseUrl}/product/${tee.productId}`);
    const guestMail = await smtp.waitForText('guest@example.org', 'Leave this list');
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(smtp.mailsTo('bo@example.org').filter((mail) => mail.decoded.includes('Leave this list'))).toHaveLength(0);
    expect(smtp.mailsTo('ada@example.org').filter((mail) => mail.decoded.includes('Leave this list'))).toHaveLength(1);

    // The guest leaves from the mail's link, signed out: the entry ends.
    await anonymous().call('leaveWaitlistByLink', { token: tokenOf(linkIn(guestMail, '/waitlist/leave')) });
    expect((await entries(tee.variantId)).find((row) => row.email === 'guest@example.org')!.status).toBe('left');
  });
});

describe('a sold-out bundle', () => {
  it('takes notify me like a variant; a unit of its missing part back tells its list, one per bundle the parts allow, in order', async () => {
    const missing = await soldOutTee();
    serial += 1;
    const plentyId = await releaseProduct(shop.db, {
      name: `Notify Poster ${serial}`,
      description: 'Poster',
      priceCents: 900,
      images: ['/content/covers/cover-01.svg'],
      variants: [{ options: [], sku: `NP-${serial}`, priceCents: null, stock: 5, perCustomerLimit: null }],
    });
    const plenty = (await getProduct(shop.db, plentyId, { includeInactive: false })).variants[0]!.id;
    const bundleId = await releaseProduct(shop.db, { name: `Notify Bundle ${serial}`, description: 'Tee and poster', priceCents: 2500, images: ['/content/covers/cover-01.svg'] });
    await saveBundle(
      shop.db,
      { operator: 'cli' },
      {
        productId: bundleId,
        components: [
          { productId: missing.productId, variantId: missing.variantId, qty: 1 },
          { productId: plentyId, variantId: plenty, qty: 1 },
        ],
      },
    );
    const bundle = await getProduct(shop.db, bundleId, { includeInactive: false });
    const variantId = bundle.variants[0]!.id;
    expect(bundle.variants[0]!.stock).toBe(0);

    // Signed in and signed out, as on any sold-out variant: one list, in ask order.
    await as('bo').call('joinWaitlist', { variantId });
    await anonymous().call('notifyMeByEmail', { variantId, email: 'bundlefan@example.org' });
    await anonymous().call('confirmNotifyMe', { token: tokenOf(linkIn(await smtp.waitForText('bundlefan@example.org', 'Confirm'), '/notify/confirm')) });
    await as('cy').call('joinWaitlist', { variantId });
    expect((await entries(variantId)).map((row) => row.status)).toEqual(['waiting', 'waiting', 'waiting']);

    // One tee back (a return counted back in the console): one bundle can be made, so one fan is told, the first.
    await admin().call('setVariantStock', { variantId: missing.variantId, stock: 1, reason: 'return' });
    const told = await waitFor(
      () => entries(variantId),
      (rows) => rows.some((row) => row.status === 'offered'),
      'an offer of the bundle',
    );
    expect(told.map((row) => row.status)).toEqual(['offered', 'waiting', 'waiting']);
    const mail = await smtp.waitForText('bo@example.org', `Notify Bundle ${serial}`);
    expect(mail.decoded).toContain(`${shop.baseUrl}/product/${bundleId}`);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect((await entries(variantId)).map((row) => row.status)).toEqual(['offered', 'waiting', 'waiting']);
    expect(smtp.mailsTo('bundlefan@example.org').filter((found) => found.decoded.includes('Leave this list'))).toHaveLength(0);
  });
});

describe('deleting an account', () => {
  it('the export lists the entries; deletion removes the account’s and its address’s', async () => {
    const tee = await soldOutTee();
    await as('gone').call('joinWaitlist', { variantId: tee.variantId });
    const other = await soldOutTee();
    await anonymous().call('notifyMeByEmail', { variantId: other.variantId, email: 'gone@example.org' });
    const exported = await as('gone').call('exportMyData', null);
    expect(exported.notifyMe).toEqual([
      expect.objectContaining({ productId: tee.productId, askedBy: 'account', status: 'waiting' }),
      expect.objectContaining({ productId: other.productId, askedBy: 'email', status: 'pending' }),
    ]);
    await as('gone').call('deleteAccount', { password: TEST_PASSWORD, confirm: 'DELETE' });
    expect(await entries(tee.variantId)).toEqual([]);
    expect(await entries(other.variantId)).toEqual([]);
  });
});
