import { eq, sql } from 'drizzle-orm';
import type Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROSTER_MESSAGES } from '@storefront/domain/roster.ts';
import { ROYALTY_MESSAGES } from '@storefront/domain/royalties.ts';
import type { FunctionsError } from '@storefront/sdk/callable.ts';
import { startTestApp, type TestApp } from '../../test/app.ts';
import { salesOverview } from '../admin/sales.service.ts';
import { releaseProduct } from '../catalog/catalog.service.ts';
import { postEarnings } from '../checkout/earnings.step.ts';
import { orders, royaltyEntries, royaltyParties } from '../db/schema/index.ts';
import { runTransaction } from '../db/transaction.ts';
import { applyRefundEvent } from '../orders/refund-events.service.ts';
import { failRefund, lockOrder, planOrderRefund, reserveRefund } from '../orders/refund-writes.service.ts';
import { insertOrder } from '../orders/orders.service.ts';
import { toPaymentEvent } from '../payments/stripe-events.ts';
import { credit, debit } from '../wallet/wallet.service.ts';

/**
 * Split rules, recoup, reserve, lost disputes and failed refunds (issue 36 parts 2-3, decision
 * 075), each checked by its outcome: the function's answer, the ledger's rows, the overview.
 */
const ZONE = 'America/New_York';
let app: TestApp;
let admin: ReturnType<TestApp['functions']>;
let adminId: string;
let buyerId: string;
let house: number;
let serial = 0;

beforeAll(async () => {
  app = await startTestApp({ config: { env: { LABEL_TIME_ZONE: ZONE } } });
  adminId = await app.account('royalty-rules-admin');
  buyerId = await app.account('royalty-rules-buyer');
  await app.db.execute(sql`UPDATE "user" SET role = 'admin' WHERE id = ${adminId}`);
  const token = await app.signIn('royalty-rules-admin@example.org');
  admin = app.functions(() => token);
  house = (await app.db.select().from(royaltyParties).where(eq(royaltyParties.house, true)))[0]!.id;
});

afterAll(async () => {
  await app?.close();
});

const errorOf = async (promise: Promise<unknown>) =>
  (await promise.then(
    () => undefined,
    (error: unknown) => error,
  )) as FunctionsError;
const today = () => new Intl.DateTimeFormat('en-CA', { timeZone: ZONE, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date());

/** An order of `qty` units of `productId` at `unitCents`, paid by card or from the wallet, posted as the checkout flows post it. */
async function order(productId: string, unitCents: number, qty: number, by: 'card' | 'wallet') {
  serial += 1;
  const subtotal = unitCents * qty;
  const tax = Math.round(subtotal * 0.0925);
  const total = subtotal + tax;
  return runTransaction(app.db, async (tx) => {
    const { id } = await insertOrder(tx, {
      userId: buyerId,
      checkoutId: `royalty-rules-${serial}`,
      paymentIntentId: `pi_royalty_rules_${serial}`,
      items: [{ id: productId, name: 'Line', qty, unitCents }],
      subtotalCents: subtotal,
      shippingCents: 0,
      taxCents: tax,
      walletAppliedCents: by === 'wallet' ? total : 0,
      chargedCents: by === 'card' ? total : 0,
      contact: { name: 'Buyer', email: 'royalty-rules-buyer@example.org', phone: '' },
      shipping: { name: 'Buyer' },
    });
    if (by === 'wallet') {
      await credit(tx, buyerId, total, `royalty-rules-grant-${serial}`);
      await debit(tx, buyerId, total, id);
    }
    await postEarnings(tx, id);
    return { id, paymentIntentId: `pi_royalty_rules_${serial}`, total };
  });
}

async function entriesOf(orderId: string) {
  return app.db.select().from(royaltyEntries).where(eq(royaltyEntries.orderId, orderId)).orderBy(royaltyEntries.id);
}

describe('split rules', () => {
  it('are set by an admin from today on, never for a past day; shares must add up to 10,000', async () => {
    const productId = await releaseProduct(app.db, { name: 'Rule Tee', description: 'Tee', priceCents: 2000, images: ['/content/covers/cover-01.svg'] });
    const { id: producer } = await admin.call('saveRoyaltyParty', { kind: 'producer', name: 'Rule Producer' });
    const yesterday = new Date(Date.parse(`${today()}T12:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
    const shares = [
      { partyId: house, shareBp: 6000 },
      { partyId: producer, shareBp: 4000 },
    ];
    expect((await errorOf(admin.call('setRoyaltySplit', { subject: { kind: 'product', id: productId }, effectiveFrom: yesterday, shares }))).message).toBe(
      ROYALTY_MESSAGES.pastDate,
    );
    expect((await errorOf(admin.call('setRoyaltySplit', { subject: { kind: 'product', id: productId }, shares: [{ partyId: house, shareBp: 6000 }] }))).message).toContain(
      ROYALTY_MESSAGES.sharesSum,
    );
    expect((await errorOf(admin.call('setRoyaltySplit', { subject: { kind: 'product', id: 'no-such-product' }, shares }))).message).toBe(ROYALTY_MESSAGES.subjectNotFound);
    const saved = await admin.call('setRoyaltySplit', { subject: { kind: 'product', id: productId }, shares });
    expect(saved.effectiveFrom).toBe(today());
    const listed = await admin.call('listRoyalties', null);
    expect(listed.rules.find((rule) => rule.id === saved.id)).toMatchObject({ subjectName: 'Rule Tee', effectiveFrom: today(), shares });

    // A sale today takes the rule: $20.00 x 3 = $60.00 of goods, 60/40.
    const sold = await order(productId, 2000, 3, 'wallet');
    const sale = (await entriesOf(sold.id)).filter((entry) => entry.kind === 'sale');
    expect(sale.map((entry) => [entry.partyId, entry.amountCents])).toEqual([
      [house, 3600],
      [producer, 2400],
    ]);
    // A new rule from today does not touch what was posted; the refund reverses under the sale's rule.
    await admin.call('setRoyaltySplit', { subject: { kind: 'product', id: productId }, shares: [{ partyId: producer, shareBp: 10_000 }] });
    await admin.call('refundOrder', { orderId: sold.id, lines: [{ lineId: 0, quantity: 1 }], idempotencyKey: `royalty-rules-refund-${serial}` });
    const back = (await entriesOf(sold.id)).filter((entry) => entry.kind === 'return');
    expect(back.map((entry) => [entry.partyId, entry.amountCents])).toEqual([
      [house, -1200],
      [producer, -800],
    ]);
  });
});

describe('recoup and reserve', () => {
  it('recoups an advance from the artist’s share of its release and holds a reserve for its days', async () => {
    const { id: releaseId } = await admin.call('saveRelease', {
      kind: 'ep',
      title: 'Recoup EP',
      artist: 'Recoup Band',
      releaseDate: '2026-05-01',
      priceCents: 1000,
      published: true,
      tracks: [{ title: 'One' }],
    });
    const { release } = await admin.call('getRelease', { id: releaseId });
    const { id: artistId } = await admin.call('saveArtist', { name: 'Recoup Band', links: [] });
    const { id: artist } = await admin.call('saveRoyaltyParty', { kind: 'artist', name: 'Recoup Band', artistId });
    await admin.call('setRoyaltySplit', {
      subject: { kind: 'release', id: releaseId },
      shares: [
        { partyId: house, shareBp: 5000 },
        { partyId: artist, shareBp: 5000 },
      ],
      reserveBp: 1000,
      reserveDays: 30,
    });
    await admin.call('addRecoupCost', { releaseId, partyId: artist, kind: 'advance', amountCents: 1200, note: 'Advance' });
    const balanceOf = async () => (await admin.call('listRoyalties', null)).balances.find((row) => row.partyId === artist);

    // $20.00 of goods: the artist earns $10.00, $10.00 recouped, $1.00 held in reserve.
    const first = await order(release!.productId!, 1000, 2, 'wallet');
    expect(await balanceOf()).toEqual({ partyId: artist, earnedCents: 1000, recoupedCents: 1000, reserveHeldCents: 100, balanceCents: -100 });
    // $30.00 more: $15.00 earned, the last $2.00 of the advance recouped, $1.50 more held.
    const second = await order(release!.productId!, 1000, 3, 'wallet');
    expect(await balanceOf()).toEqual({ partyId: artist, earnedCents: 2500, recoupedCents: 1200, reserveHeldCents: 250, balanceCents: 1050 });
    const cost = (await admin.call('listRoyalties', null)).costs.find((row) => row.partyId === artist);
    expect(cost).toMatchObject({ amountCents: 1200, recoupedCents: 1200 });
    // The reserve's release is dated 30 days on.
    const release30 = (await entriesOf(first.id)).find((entry) => entry.kind === 'release' && entry.partyId === artist);
    expect(release30?.availableOn).toBe(new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10));
    // The second order refunded whole: its $15.00 back, and the recoup follows the earnings down to $10.00.
    await admin.call('refundOrder', { orderId: second.id, idempotencyKey: `royalty-recoup-refund-${serial}` });
    expect(await balanceOf()).toMatchObject({ earnedCents: 1000, recoupedCents: 1000 });
  });
});

describe('disputes and failed refunds', () => {
  it('reads charge.dispute.* events; a lost dispute is a return in the overview and the ledger, once', async () => {
    const productId = await releaseProduct(app.db, { name: 'Dispute LP', description: 'LP', priceCents: 3000, images: ['/content/covers/cover-02.svg'] });
    const sold = await order(productId, 3000, 1, 'card');
    const dispute = (type: string, status: string, eventId: string) =>
      toPaymentEvent({
        id: eventId,
        object: 'event',
        type,
        data: { object: { id: `dp_${serial}`, object: 'dispute', amount: 2000, status, payment_intent: sold.paymentIntentId } },
      } as unknown as Stripe.Event);
    const deps = { db: app.db, provider: { name: 'local' } } as never;
    const opened = dispute('charge.dispute.created', 'needs_response', `evt_open_${serial}`);
    expect(opened).toMatchObject({ type: 'dispute', paymentIntentId: sold.paymentIntentId, dispute: { status: 'needs_response', amountCents: 2000, closed: false } });
    const before = (await salesOverview(app.db, ZONE, { from: today(), to: today() })).totals;
    expect(await applyRefundEvent(deps, opened)).toBe('applied');
    expect((await admin.call('getOrder', { orderId: sold.id })).order.dispute).toEqual({ status: 'needs_response', amountCents: 2000 });
    expect((await entriesOf(sold.id)).filter((entry) => entry.kind === 'return')).toEqual([]);

    const lost = dispute('charge.dispute.closed', 'lost', `evt_lost_${serial}`);
    expect(await applyRefundEvent(deps, lost)).toBe('applied');
    expect(await applyRefundEvent(deps, lost)).toBe('duplicate');
    // A late update after the close changes nothing.
    expect(await applyRefundEvent(deps, dispute('charge.dispute.updated', 'lost', `evt_late_${serial}`))).toBe('applied');
    expect((await admin.call('getOrder', { orderId: sold.id })).order.dispute).toEqual({ status: 'lost', amountCents: 2000 });
    const after = (await salesOverview(app.db, ZONE, { from: today(), to: today() })).totals;
    const returned = after.returnsCents - before.returnsCents;
    // $20.00 of a $30.00 + tax + card fee order: its goods part, shared as a refund by amount is.
    expect(returned).toBeGreaterThan(0);
    expect(returned).toBeLessThan(2000);
    expect(after.refundedCardCents - before.refundedCardCents).toBe(2000);
    const back = (await entriesOf(sold.id)).filter((entry) => entry.kind === 'return');
    expect(back.reduce((sum, entry) => sum + entry.amountCents, 0)).toBe(-returned);
    expect(back.every((entry) => entry.source === `dispute:dp_${serial}`)).toBe(true);
  });

  it('follows the card refunds made outside the desk (the dashboard), as the overview counts them', async () => {
    const productId = await releaseProduct(app.db, { name: 'Dashboard Tee', description: 'Tee', priceCents: 2500, images: ['/content/covers/cover-01.svg'] });
    const sold = await order(productId, 2500, 2, 'card');
    const deps = { db: app.db, provider: { name: 'local' } } as never;
    const refunded = (eventId: string, cents: number) =>
      toPaymentEvent({
        id: eventId,
        object: 'event',
        type: 'charge.refunded',
        data: { object: { id: `ch_${serial}`, object: 'charge', amount: sold.total, amount_refunded: cents, payment_intent: sold.paymentIntentId } },
      } as unknown as Stripe.Event);
    const returnsToday = async () => (await salesOverview(app.db, ZONE, { from: today(), to: today() })).totals.returnsCents;
    const ledgerReturns = async () => (await entriesOf(sold.id)).filter((entry) => entry.kind === 'return').reduce((sum, entry) => sum + entry.amountCents, 0);
    const start = await returnsToday();
    expect(await applyRefundEvent(deps, refunded(`evt_dash1_${serial}`, 1000))).toBe('applied');
    const first = (await returnsToday()) - start;
    expect(first).toBeGreaterThan(0);
    expect(await ledgerReturns()).toBe(-first);
    // A second dashboard refund: the overview counts the whole $15.00 once, and so does the ledger.
    expect(await applyRefundEvent(deps, refunded(`evt_dash2_${serial}`, 1500))).toBe('applied');
    const both = (await returnsToday()) - start;
    expect(both).toBeGreaterThan(first);
    expect(await ledgerReturns()).toBe(-both);
    const sources = new Set((await entriesOf(sold.id)).filter((entry) => entry.kind === 'return').map((entry) => entry.source));
    expect(sources).toEqual(new Set([`provider-refund:evt_dash1_${serial}`, `provider-refund-undo:evt_dash1_${serial}`, `provider-refund:evt_dash2_${serial}`]));
  });

  it('reverses the return of a refund that failed for good', async () => {
    const productId = await releaseProduct(app.db, { name: 'Failed Refund Tee', description: 'Tee', priceCents: 1500, images: ['/content/covers/cover-01.svg'] });
    const sold = await order(productId, 1500, 2, 'card');
    const refund = await runTransaction(app.db, async (tx) => {
      const locked = await lockOrder(tx, sold.id);
      const input = { orderId: sold.id, lines: [{ lineId: 0, quantity: 1 }], idempotencyKey: `royalty-failed-${serial}` };
      return reserveRefund(tx, locked, adminId, input.idempotencyKey, await planOrderRefund(tx, locked, input));
    });
    const returned = (await entriesOf(sold.id)).filter((entry) => entry.kind === 'return');
    expect(returned.reduce((sum, entry) => sum + entry.amountCents, 0)).toBe(-1500);
    await runTransaction(app.db, (tx) => failRefund(tx, refund, 'The card refund failed.'));
    const all = (await entriesOf(sold.id)).filter((entry) => entry.kind === 'return');
    expect(all.filter((entry) => entry.source === `refund-failed:${refund.id}`).reduce((sum, entry) => sum + entry.amountCents, 0)).toBe(1500);
    expect(all.reduce((sum, entry) => sum + entry.amountCents, 0)).toBe(0);
    // The overview no longer counts it, and the ledger sums to its net sales for the day.
    const overview = await salesOverview(app.db, ZONE, { from: today(), to: today() });
    const [posted] = await app.db
      .execute<{ cents: string }>(
        sql`
      SELECT coalesce(sum(amount_cents), 0)::text AS cents FROM royalty_entry
      WHERE kind IN ('sale', 'return') AND to_char(earned_at AT TIME ZONE ${ZONE}, 'YYYY-MM-DD') = ${today()}`,
      )
      .then((result) => result.rows);
    expect(Number(posted!.cents)).toBe(overview.totals.netSalesCents);
    await app.db.update(orders).set({ refundStatus: null }).where(eq(orders.id, sold.id));
  });
});

describe('an artist with a party', () => {
  it('is never deleted; merged, its party goes to the artist kept', async () => {
    const { id: from } = await admin.call('saveArtist', { name: 'Merge From', links: [] });
    const { id: into } = await admin.call('saveArtist', { name: 'Merge Into', links: [] });
    const { id: partyId } = await admin.call('saveRoyaltyParty', { kind: 'artist', name: 'Merge From', artistId: from });
    expect((await errorOf(admin.call('deleteArtist', { id: from }))).message).toBe(ROSTER_MESSAGES.inUse);
    await admin.call('mergeArtist', { from, into });
    const party = (await admin.call('listRoyalties', null)).parties.find((row) => row.id === partyId);
    expect(party).toMatchObject({ artistId: into, name: 'Merge From' });
  });
});
