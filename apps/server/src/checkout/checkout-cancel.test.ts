import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFunctionsClient } from '@storefront/sdk/callable.ts';
import { startTestApp, type TestApp } from '../../test/app.ts';
import type { TestDatabase } from '../../test/database.ts';
import { releaseProduct } from '../catalog/catalog.service.ts';
import { checkouts, ledgerEntries, orders } from '../db/schema/index.ts';
import type { JobQueue } from '../jobs/queue.ts';
import type { PaymentProvider } from '../payments/provider.ts';
import { grantCredits } from '../wallet/wallet.commands.ts';
import { getBalance } from '../wallet/wallet.service.ts';
import { cancelCheckout } from './checkout.flow.ts';
import { applyPaymentEvent } from './payment.flow.ts';

/**
 * Issue 17, item 3: leaving the payment page cancels its checkout and releases the held
 * wallet credit at once, exactly once, and never races a payment into both outcomes.
 */
let shop: TestApp;
let database: TestDatabase;
let base: string;
let token: string;
let buyer: string;
let capId: string;
let teeId: string;

const contact = { name: 'Card Buyer', email: 'leaver@example.org', phone: '' };
const shipping = { name: 'Card Buyer', line1: '1 Main St', line2: '', city: 'Springfield', state: 'IL', postal_code: '62701', country: 'US' };
const fn = () => createFunctionsClient({ baseUrl: base, getAuthToken: () => token });
const auth = () => ({ authorization: `Bearer ${token}` });
const form = { 'content-type': 'application/x-www-form-urlencoded' };

function startCardCheckout(checkoutId: string, items = [{ id: capId, qty: 3 }]) {
  return fn().call('createPaymentLinkStreetFlavorMerch', { items, useWallet: true, contact, shipping, checkoutId });
}
const cancel = (url: string) => fetch(`${base}${url}/cancel`, { method: 'POST', redirect: 'manual', headers: { ...auth(), ...form }, body: '' });
const pay = (url: string) => fetch(`${base}${url}`, { method: 'POST', redirect: 'manual', headers: { ...auth(), ...form }, body: 'card=4242+4242+4242+4242' });
const statusOf = async (id: string) => (await database.db.select({ status: checkouts.status }).from(checkouts).where(eq(checkouts.id, id)))[0]?.status;
const entries = (reference: string) => database.db.select({ kind: ledgerEntries.kind }).from(ledgerEntries).where(eq(ledgerEntries.reference, reference));

beforeAll(async () => {
  shop = await startTestApp({ database: { max: 30 } });
  ({ database, baseUrl: base } = shop);
  buyer = await shop.account('leaver');
  capId = await releaseProduct(database.db, { name: 'Cap', description: 'Cap', priceCents: 1999, images: ['/content/covers/cover-02.svg'] });
  teeId = await releaseProduct(database.db, { name: 'Tee', description: 'Tee', priceCents: 2500, images: ['/content/covers/cover-01.svg'] });
  await grantCredits(database.db, 'leaver@example.org', '10', 'leaver-credit');
  token = await shop.signIn('leaver@example.org');
});

afterAll(async () => {
  await shop?.close();
});

describe('leaving the payment page', () => {
  it('"Back to checkout" cancels the checkout and releases its hold at once, exactly once', async () => {
    const before = await getBalance(database.db, buyer);
    const link = await startCardCheckout('back-one');
    expect(await getBalance(database.db, buyer)).toEqual({ balanceCents: 0, heldCents: before.balanceCents });
    const page = await (await fetch(`${base}${link.url}`, { headers: auth() })).text();
    expect(page).toContain(`<form method="post" action="${link.url}/cancel">`);
    expect(page).toMatch(/<button type="submit"[^>]*>Back to checkout<\/button>/);

    const back = await cancel(link.url);
    expect([back.status, back.headers.get('location')]).toEqual([302, '/checkout']);
    expect(await statusOf(link.checkoutId)).toBe('cancelled');
    expect(await getBalance(database.db, buyer)).toEqual(before);
    // Again (a double click, a second tab): nothing more is released.
    expect((await cancel(link.url)).status).toBe(302);
    expect(await cancelCheckout({ db: database.db } as never, buyer, link.checkoutId)).toBe(false);
    expect((await entries(link.checkoutId)).map((e) => e.kind).sort()).toEqual(['hold', 'release']);
    expect(await getBalance(database.db, buyer)).toEqual(before);

    // The page is closed now: paying it is refused, no order, nothing taken.
    const late = await pay(link.url);
    expect(late.headers.get('location')).toBe(link.url);
    expect(await (await fetch(`${base}${link.url}`, { headers: auth() })).text()).toContain('This payment is closed.');
    expect(await database.db.select().from(orders).where(eq(orders.checkoutId, link.checkoutId))).toHaveLength(0);
    expect(await getBalance(database.db, buyer)).toEqual(before);
  });

  it('a new checkout replaces the one left behind (one open card checkout per account) and uses the full wallet', async () => {
    const before = await getBalance(database.db, buyer);
    const otherCart = await startCardCheckout('other-cart-1', [{ id: teeId, qty: 3 }]);
    const first = await startCardCheckout('same-cart-1');
    expect(await statusOf(otherCart.checkoutId)).toBe('cancelled');
    // The browser's back button: no cancel was sent. The next checkout of the same cart:
    const second = await startCardCheckout('same-cart-2');
    expect(await statusOf(first.checkoutId)).toBe('cancelled');
    const [firstRow] = await database.db.select().from(checkouts).where(eq(checkouts.id, first.checkoutId));
    const [secondRow] = await database.db.select().from(checkouts).where(eq(checkouts.id, second.checkoutId));
    // The first hold came back before the second was priced: the second applies the same wallet part.
    expect(secondRow!.walletHeldCents).toBe(firstRow!.walletHeldCents);
    expect(secondRow!.chargeCents).toBe(firstRow!.chargeCents);
    // Retrying the same checkout id returns its own page and cancels nothing.
    expect((await startCardCheckout('same-cart-2')).url).toBe(second.url);
    expect(await statusOf(second.checkoutId)).toBe('pending');
    expect((await cancel(second.url)).status).toBe(302);
    expect(await getBalance(database.db, buyer)).toEqual(before);
  });

  it('refuses to cancel someone else’s checkout', async () => {
    const link = await startCardCheckout('not-yours-1');
    expect(await cancelCheckout({ db: database.db } as never, 'someone-else', link.checkoutId)).toBe(false);
    const anonymous = await fetch(`${base}${link.url}/cancel`, { method: 'POST', redirect: 'manual', headers: form, body: '' });
    expect(anonymous.status).toBe(404);
    expect(await statusOf(link.checkoutId)).toBe('pending');
    await cancel(link.url);
  });
});

describe('cancel racing a payment', () => {
  it('ends every race in exactly one outcome: an order with the hold captured, or cancelled with the hold released', async () => {
    const outcomes = { paid: 0, cancelled: 0 };
    for (let round = 0; round < 12; round++) {
      const before = await getBalance(database.db, buyer);
      const link = await startCardCheckout(`race-round-${round}`);
      const [held] = await database.db.select().from(checkouts).where(eq(checkouts.id, link.checkoutId));
      // Both at once; alternate which is sent first.
      const [cancelled, paid] =
        round % 2 === 0 ? await Promise.all([cancel(link.url), pay(link.url)]) : await Promise.all([pay(link.url), cancel(link.url)]).then(([p, c]) => [c, p] as const);
      expect(cancelled.status).toBe(302);
      expect(paid.status).toBe(302);
      const status = await statusOf(link.checkoutId);
      const kinds = (await entries(link.checkoutId)).map((e) => e.kind).sort();
      const made = await database.db.select().from(orders).where(eq(orders.checkoutId, link.checkoutId));
      const after = await getBalance(database.db, buyer);
      if (status === 'paid') {
        outcomes.paid += 1;
        expect(kinds).toEqual(['capture', 'hold']);
        expect(made).toHaveLength(1);
        expect(paid.headers.get('location')).toMatch(/redirect_status=succeeded$/);
        expect(after).toEqual({ balanceCents: before.balanceCents - held!.walletHeldCents, heldCents: before.heldCents });
        // Spent: give the credit back for the next round.
        await grantCredits(database.db, 'leaver@example.org', (held!.walletHeldCents / 100).toFixed(2), `race-refill-${round}`);
      } else {
        outcomes.cancelled += 1;
        expect(status).toBe('cancelled');
        expect(kinds).toEqual(['hold', 'release']);
        expect(made).toHaveLength(0);
        expect(paid.headers.get('location')).toBe(link.url);
        expect(after).toEqual(before);
      }
    }
    expect(outcomes.paid + outcomes.cancelled).toBe(12);
    const late = await database.db
      .select()
      .from(ledgerEntries)
      .where(and(eq(ledgerEntries.userId, buyer), sql`${ledgerEntries.reference} LIKE 'late:%'`));
    expect(late).toHaveLength(0);
  });

  it('a provider payment that arrives after the cancel goes the late-payment way: one order, wallet part taken again', async () => {
    const before = await getBalance(database.db, buyer);
    const link = await startCardCheckout('late-card-1');
    const [held] = await database.db.select().from(checkouts).where(eq(checkouts.id, link.checkoutId));
    await cancel(link.url);
    expect(await getBalance(database.db, buyer)).toEqual(before);
    // As a real provider (Stripe) reports it: the card was charged before its session was closed.
    const provider = { name: 'stripe' } as PaymentProvider;
    const deps = { db: database.db, jobs: { sendInTransaction: async () => undefined } as unknown as JobQueue, provider, publicUrl: base };
    const event = {
      eventId: 'evt_late_1',
      type: 'succeeded' as const,
      checkoutId: link.checkoutId,
      sessionId: held!.providerSessionId,
      paymentIntentId: 'pi_late_1',
      amountCents: held!.chargeCents,
    };
    expect(await applyPaymentEvent(deps, event)).toBe('applied');
    expect(await applyPaymentEvent(deps, event)).toBe('duplicate');
    expect(await database.db.select().from(orders).where(eq(orders.checkoutId, link.checkoutId))).toHaveLength(1);
    expect(await getBalance(database.db, buyer)).toEqual({ balanceCents: before.balanceCents - held!.walletHeldCents, heldCents: before.heldCents });
  });
});
