import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RefusedCheckoutTransition, type CheckoutStatus } from '@storefront/domain/checkout-states.ts';
import { startTestApp, type TestApp } from '../../test/app.ts';
import { checkouts } from '../db/schema/index.ts';
import { runTransaction } from '../db/transaction.ts';
import { markCheckout } from './checkouts.service.ts';

/** Issue 34 step 3: `markCheckout` goes through the transition table; a refused change throws and changes nothing. */
let shop: TestApp;
let buyer: string;

beforeAll(async () => {
  shop = await startTestApp();
  buyer = await shop.account('states');
});
afterAll(async () => {
  await shop?.close();
});

async function checkoutIn(id: string, status: CheckoutStatus) {
  await shop.db.insert(checkouts).values({
    id,
    userId: buyer,
    status,
    provider: 'local',
    items: [],
    contact: { name: 'S', email: 'states@example.org', phone: '' },
    shipping: {},
    subtotalCents: 100,
    shippingCents: 0,
    taxCents: 0,
    walletHeldCents: 0,
    amountDueCents: 100,
    chargeCents: 100,
    expiresAt: new Date(Date.now() + 60_000),
  });
}
const statusOf = async (id: string) => (await shop.db.select({ status: checkouts.status, settledAt: checkouts.settledAt }).from(checkouts).where(eq(checkouts.id, id)))[0];
const mark = (id: string, to: 'paid' | 'refunded') => runTransaction(shop.db, (tx) => markCheckout(tx, id, to));

describe('markCheckout', () => {
  it('makes the changes the table allows', async () => {
    await checkoutIn('c_pending', 'pending');
    await checkoutIn('c_expired', 'expired');
    await checkoutIn('c_cancelled', 'cancelled');
    await mark('c_pending', 'paid');
    await mark('c_expired', 'paid');
    await mark('c_cancelled', 'refunded');
    expect((await statusOf('c_pending'))?.status).toBe('paid');
    expect((await statusOf('c_expired'))?.status).toBe('paid');
    expect((await statusOf('c_cancelled'))?.status).toBe('refunded');
    expect((await statusOf('c_pending'))?.settledAt).toBeInstanceOf(Date);
  });

  it('refuses any other change: it throws and the checkout keeps its status', async () => {
    await checkoutIn('c_paid', 'paid');
    await checkoutIn('c_refunded', 'refunded');
    await expect(mark('c_paid', 'refunded')).rejects.toThrow(new RefusedCheckoutTransition('c_paid', 'paid', 'refunded'));
    await expect(mark('c_refunded', 'paid')).rejects.toBeInstanceOf(RefusedCheckoutTransition);
    await expect(mark('c_none', 'paid')).rejects.toThrow('Checkout c_none cannot change from missing to paid.');
    expect(await statusOf('c_paid')).toEqual({ status: 'paid', settledAt: null });
    expect(await statusOf('c_refunded')).toEqual({ status: 'refunded', settledAt: null });
  });
});
