import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { FunctionsError } from '@storefront/sdk/callable.ts';
import { GIFT_CARD_MESSAGES } from '@storefront/domain/gift-cards.ts';
import { salesCsv } from '@storefront/domain/sales.ts';
import { startTestApp, type TestApp } from '../../test/app.ts';
import { startSmtpPeer } from '../../test/smtp.ts';
import { releaseProduct } from '../catalog/catalog.service.ts';
import { applyPaymentEvent, expireCheckout } from '../checkout/payment.flow.ts';
import { checkouts, giftCards, orders, paymentRefunds, productVariants, users } from '../db/schema/index.ts';
import { startJobQueue } from '../jobs/queue.ts';
import { createLocalProvider } from '../payments/local.provider.ts';
import { hashCode } from './giftcards.service.ts';

/**
 * Gift cards end to end (issue 27, decision 053): bought by card with a recipient, mailed
 * through a real SMTP peer, redeemed as wallet credit exactly once under concurrency (two
 * app instances on one database), never paid with wallet credit or a code, voided by a
 * refund while unredeemed, and shown as a liability in the sales overview.
 */
let smtp: Awaited<ReturnType<typeof startSmtpPeer>>;
let shop: TestApp;
let second: TestApp;
let giftId: string;
let tooBigId: string;
const tokens: Record<string, string> = {};
const REDEEMERS = ['r0', 'r1', 'r2', 'r3', 'r4', 'r5', 'r6', 'r7'];
const contact = { name: 'Gift Buyer', email: 'giver@example.org', phone: '' };
const shipping = { name: 'Gift Buyer', line1: '1 Main St', city: 'Springfield', state: 'IL', postal_code: '62701', country: 'US' };
const gift = { recipientEmail: 'lucky@example.net', message: 'Happy birthday!\nSpin something loud.' };
const CODE = /[A-HJKMNP-Z2-9]{4}-[A-HJKMNP-Z2-9]{4}-[A-HJKMNP-Z2-9]{4}-[A-HJKMNP-Z2-9]{4}/;

const errorOf = async (promise: Promise<unknown>) =>
  (await promise.then(
    () => undefined,
    (e: unknown) => e,
  )) as FunctionsError;

beforeAll(async () => {
  smtp = await startSmtpPeer();
  shop = await startTestApp({
    database: { max: 30 },
    config: { env: { SMTP_URL: smtp.url } },
    async seed({ db }) {
      const amounts = {
        priceCents: 2500,
        options: [{ name: 'Amount', values: ['$25.00', '$50.00'] }],
        variants: [
          { options: ['$25.00'], priceCents: 2500, sku: '', stock: null },
          { options: ['$50.00'], priceCents: 5000, sku: '', stock: null },
        ],
      };
      giftId = await releaseProduct(db, { name: 'Gift Card', description: 'For the record collector.', images: ['/content/covers/cover-01.svg'], ...amounts });
      tooBigId = await releaseProduct(db, { name: 'Huge Card', description: 'Too much.', priceCents: 500_000, images: ['/content/covers/cover-01.svg'] });
    },
  });
  second = await startTestApp({ database: shop.database, config: { env: { SMTP_URL: smtp.url, AUTH_SECRET: shop.config.AUTH_SECRET } } });
  for (const name of ['boss', 'giver', ...REDEEMERS]) await shop.account(name);
  await shop.db.update(users).set({ role: 'admin' }).where(eq(users.email, 'boss@example.org'));
  for (const name of ['boss', 'giver', ...REDEEMERS]) tokens[name] = await shop.signIn(`${name}@example.org`);
}, 240_000);

afterAll(async () => {
  await second?.close();
  await shop?.close();
  await smtp?.close();
});

const as = (name: string, app: TestApp = shop) => app.functions(() => tokens[name]);

async function pay(url: string, token: string) {
  const paid = await fetch(`${shop.baseUrl}${url}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'card=4242424242424242',
  });
  expect(paid.headers.get('location')).toMatch(/redirect_status=succeeded/);
}

describe('gift cards', () => {
  const items: { id: string; variantId: string; qty: number }[] = [];
  let codes: string[] = [];
  let orderId = '';

  it('lets only an admin make a product a gift card, with amounts in bounds', async () => {
    expect((await errorOf(as('giver').call('setProductGiftCard', { productId: giftId, giftCard: true }))).code).toBe('permission-denied');
    expect((await errorOf(as('boss').call('setProductGiftCard', { productId: tooBigId, giftCard: true }))).message).toBe(
      'Each gift card amount must be between $5.00 and $1,000.00.',
    );
    await expect(as('boss').call('setProductGiftCard', { productId: giftId, giftCard: true })).resolves.toEqual({ ok: true });
    const variants = await shop.db.select().from(productVariants).where(eq(productVariants.productId, giftId));
    const byAmount = new Map(variants.map((variant) => [variant.optionValues[0], variant.id]));
    items[0] = { id: giftId, variantId: byAmount.get('$50.00')!, qty: 1 };
    items[1] = { id: giftId, variantId: byAmount.get('$25.00')!, qty: 1 };
  });

  it('quotes a gift card with no shipping, no tax, and says why neither wallet nor code applies', async () => {
    const quote = await as('giver').call('quoteCheckout', { items, useWallet: true, discountCode: 'ANYCODE' });
    expect(quote).toMatchObject({
      giftCard: true,
      subtotalCents: 7500,
      shippingCents: 0,
      taxCents: 0,
      totalCents: 7500,
      walletAppliedCents: 0,
      discountCents: 0,
      walletRefused: GIFT_CARD_MESSAGES.noWallet,
      discountRefused: GIFT_CARD_MESSAGES.noCode,
    });
  });

  it('refuses wallet credit, codes and a missing or bad recipient, and a recipient without a gift card', async () => {
    const base = { items, contact, shipping, gift };
    expect((await errorOf(as('giver').call('createPaymentLinkStreetFlavorMerch', { ...base, useWallet: true }))).message).toBe(GIFT_CARD_MESSAGES.noWallet);
    expect((await errorOf(as('giver').call('createPaymentLinkStreetFlavorMerch', { ...base, useWallet: false, discountCode: 'SAVE10' }))).message).toBe(GIFT_CARD_MESSAGES.noCode);
    expect((await errorOf(as('giver').call('createPaymentLinkStreetFlavorMerch', { items, contact, shipping, useWallet: false }))).message).toBe(
      GIFT_CARD_MESSAGES.recipientNeeded,
    );
    const badEmail = await errorOf(as('giver').call('createPaymentLinkStreetFlavorMerch', { ...base, useWallet: false, gift: { recipientEmail: 'not an email', message: '' } }));
    expect(badEmail.code).toBe('invalid-argument');
    expect(badEmail.message).toContain(GIFT_CARD_MESSAGES.recipientInvalid);
    const longMessage = await errorOf(as('giver').call('createPaymentLinkStreetFlavorMerch', { ...base, useWallet: false, gift: { ...gift, message: 'x'.repeat(501) } }));
    expect(longMessage.message).toContain(GIFT_CARD_MESSAGES.messageTooLong);
    const quote = { subtotalCents: 7500, shippingCents: 0, taxCents: 0, walletAppliedCents: 7500, totalCents: 7500 };
    const wallet = await errorOf(as('giver').call('completeWalletOnlyOrderStreetFlavor', { items, contact, shipping, quote, checkoutId: 'gift-wallet-1' }));
    expect(wallet.message).toBe(GIFT_CARD_MESSAGES.noWallet);
    const plain = await errorOf(as('giver').call('createPaymentLinkStreetFlavorMerch', { items: [{ id: tooBigId, qty: 1 }], contact, shipping, useWallet: false, gift }));
    expect(plain.message).toBe(GIFT_CARD_MESSAGES.notForOrder);
    expect(await shop.db.select().from(giftCards)).toEqual([]);
  });

  it('mails the recipient one code per card after the card payment, stored only hashed', async () => {
    const link = await as('giver').call('createPaymentLinkStreetFlavorMerch', { items, contact, shipping, gift, useWallet: false, checkoutId: 'gift-card-1' });
    expect((await shop.db.select().from(giftCards)).map((card) => card.status)).toEqual(['pending', 'pending']);
    await pay(link.url, tokens.giver!);
    await vi.waitFor(() => expect(smtp.mailsTo(gift.recipientEmail)).toHaveLength(2), { timeout: 20_000, interval: 100 });
    const mails = smtp.mailsTo(gift.recipientEmail);
    for (const mail of mails) {
      expect(mail.decoded).toContain('giver sent you a');
      expect(mail.decoded).toContain('Spin something loud.');
      // Sent by either instance (one database, one queue): each names its own address.
      expect(mail.decoded).toMatch(/http:\/\/127\.0\.0\.1:\d+\/wallet/);
    }
    codes = mails.map((mail) => CODE.exec(mail.decoded)![0]);
    expect(new Set(codes).size).toBe(2);
    const cards = await shop.db.select().from(giftCards);
    orderId = cards[0]!.orderId!;
    expect(cards.every((card) => card.status === 'active' && card.orderId === orderId)).toBe(true);
    const hashes = new Set(cards.map((card) => card.codeHash));
    for (const code of codes) expect(hashes.has(hashCode(code.replaceAll('-', '')))).toBe(true);
    // Nowhere in the database in clear: not the cards, not the job queue.
    for (const code of codes) {
      const plain = code.replaceAll('-', '');
      const found = await shop.db.execute<{ n: string }>(sql`
        SELECT (SELECT count(*) FROM gift_card g WHERE g::text LIKE ${`%${plain}%`}) + (SELECT count(*) FROM pgboss.job j WHERE j::text LIKE ${`%${plain}%`}) AS n`);
      expect(Number(found.rows[0]!.n)).toBe(0);
    }
    const [order] = await shop.db.select().from(orders).where(eq(orders.id, orderId));
    expect(order).toMatchObject({ subtotalCents: 7500, shippingCents: 0, taxCents: 0, walletAppliedCents: 0 });
  });

  it('redeems a code exactly once when many accounts race on two instances', async () => {
    const fifty = codes.find((code) =>
      smtp
        .mailsTo(gift.recipientEmail)
        .find((mail) => mail.decoded.includes(code))!
        .decoded.includes('$50.00'),
    )!;
    const attempts = Array.from({ length: 40 }, (_, index) => {
      const who = REDEEMERS[index % REDEEMERS.length]!;
      return as(who, index % 2 ? second : shop)
        .call('redeemGiftCard', { code: index % 3 ? fifty : fifty.toLowerCase().replaceAll('-', ' ') })
        .then(
          (result) => ({ who, result }),
          (error: FunctionsError) => ({ who, error }),
        );
    });
    const outcomes = await Promise.all(attempts);
    const won = outcomes.filter((outcome) => 'result' in outcome);
    expect(won).toHaveLength(1);
    expect(won[0]).toMatchObject({ result: { amountCents: 5000, balanceCents: 5000 } });
    for (const outcome of outcomes) if ('error' in outcome) expect(outcome.error.message).toBe(GIFT_CARD_MESSAGES.codeUsed);
    const winner = won[0]!.who;
    const credited = await shop.db.execute<{ who: string; cents: string; n: string }>(sql`
      SELECT user_id AS who, sum(available_delta_cents)::text AS cents, count(*)::text AS n FROM ledger_entry WHERE reference LIKE 'gift-card:%' GROUP BY 1`);
    expect(credited.rows).toHaveLength(1);
    expect(credited.rows[0]).toMatchObject({ cents: '5000', n: '1' });
    const { entries } = await as(winner).call('listWalletHistory', {});
    expect(entries[0]).toMatchObject({ kind: 'grant', amountCents: 5000, balanceCents: 5000, note: 'Gift card redeemed' });
    for (const other of REDEEMERS.filter((name) => name !== winner)) expect((await as(other).call('listWalletHistory', {})).entries).toEqual([]);
  });

  it('refuses unknown and malformed codes', async () => {
    expect((await errorOf(as('r0').call('redeemGiftCard', { code: 'AAAA-BBBB-CCCC-DDDD' }))).message).toBe(GIFT_CARD_MESSAGES.codeInvalid);
    expect((await errorOf(as('r0').call('redeemGiftCard', { code: 'short' }))).message).toBe(GIFT_CARD_MESSAGES.codeInvalid);
    expect((await errorOf(shop.functions().call('redeemGiftCard', { code: codes[0]! }))).code).toBe('unauthenticated');
  });

  it('shows the cards as a liability, refuses a cash refund of a redeemed card and voids an unredeemed one', async () => {
    const before = await as('boss').call('getSalesOverview', { days: 2 });
    // Redeemed is not spent (issue 39): the $50.00 is still owed, as credit in the winner's wallet.
    expect(before.giftCards).toEqual({
      soldCents: 7500,
      soldCount: 2,
      redeemedCents: 5000,
      voidedCents: 0,
      spentCents: 0,
      outstandingCents: 2500,
      walletCreditCents: 5000,
      liabilityCents: 7500,
    });
    expect(salesCsv(before)).toContain(
      'gift_cards_sold_count,gift_cards_sold_usd,gift_cards_redeemed_usd,gift_cards_voided_usd,gift_cards_spent_usd,gift_cards_outstanding_usd,gift_cards_wallet_credit_usd,gift_cards_liability_usd\r\n2,75.00,50.00,0.00,0.00,25.00,50.00,75.00',
    );
    // A gift card sold is not a sale: no gross sales, no digital goods; the money is in gift cards sold.
    expect(before.totals).toMatchObject({ grossSalesCents: 0, netSalesCents: 0, giftCardsSoldCents: 7500 });
    expect(before.byKind?.find((row) => row.kind === 'digital')).toMatchObject({ unitsSold: 0, grossSalesCents: 0 });

    // Line 0 is the $50 card, redeemed above.
    const redeemed = await errorOf(as('boss').call('refundOrder', { orderId, lines: [{ lineId: 0, quantity: 1 }], idempotencyKey: 'gift-refund-0' }));
    expect(redeemed.message).toBe(GIFT_CARD_MESSAGES.redeemedNoCash);
    expect((await errorOf(as('boss').call('refundOrder', { orderId, idempotencyKey: 'gift-refund-all' }))).message).toBe(GIFT_CARD_MESSAGES.redeemedNoCash);
    expect((await errorOf(as('boss').call('refundOrder', { orderId, amountCents: 100, idempotencyKey: 'gift-refund-amount' }))).message).toBe(GIFT_CARD_MESSAGES.refundByLine);

    const { refund } = await as('boss').call('refundOrder', { orderId, lines: [{ lineId: 1, quantity: 1 }], idempotencyKey: 'gift-refund-1' });
    // What the card paid for it: $25.00, no tax (none was charged on a gift card).
    expect(refund).toMatchObject({ cardCents: 2500, walletCents: 0 });
    const twentyFive = codes.find((code) =>
      smtp
        .mailsTo(gift.recipientEmail)
        .find((mail) => mail.decoded.includes(code))!
        .decoded.includes('$25.00'),
    )!;
    expect((await errorOf(as('r1').call('redeemGiftCard', { code: twentyFive }))).message).toBe(GIFT_CARD_MESSAGES.codeVoid);
    const after = await as('boss').call('getSalesOverview', { days: 2 });
    expect(after.giftCards).toEqual({
      soldCents: 7500,
      soldCount: 2,
      redeemedCents: 5000,
      voidedCents: 2500,
      spentCents: 0,
      outstandingCents: 0,
      walletCreditCents: 5000,
      liabilityCents: 5000,
    });
    // The refund gave back a gift card, not goods.
    expect(after.totals).toMatchObject({ returnsCents: 0, refundedGiftCardsCents: 2500, refundsCents: 2500 });
  });
});

describe('gift cards of checkouts that end unpaid (issue 40 item 3)', () => {
  const cardsOf = async (checkoutId: string) => (await shop.db.select().from(giftCards).where(eq(giftCards.checkoutId, checkoutId))).map((card) => card.status);
  const pendingOf = async (email: string) => {
    const [buyer] = await shop.db.select({ id: users.id }).from(users).where(eq(users.email, email));
    return (await shop.db.select().from(giftCards).where(eq(giftCards.buyerId, buyer!.id))).filter((card) => card.status === 'pending').length;
  };

  it('are removed when the checkout is replaced, cancelled or expires; a payment after that is refunded, not made live', async () => {
    const [variant] = await shop.db.select().from(productVariants).where(eq(productVariants.productId, giftId));
    const line = [{ id: giftId, variantId: variant!.id, qty: 2 }];
    const base = { items: line, contact, shipping, gift, useWallet: false };
    const first = await as('r7').call('createPaymentLinkStreetFlavorMerch', { ...base, checkoutId: 'gift-end-1' });
    expect(await cardsOf(first.checkoutId)).toEqual(['pending', 'pending']);
    // Replaced by the next checkout (one open checkout per account): its cards go.
    const second = await as('r7').call('createPaymentLinkStreetFlavorMerch', { ...base, checkoutId: 'gift-end-2' });
    expect(await cardsOf(first.checkoutId)).toEqual([]);
    expect(await cardsOf(second.checkoutId)).toEqual(['pending', 'pending']);
    // Cancelled by the buyer.
    expect(await as('r7').call('cancelOpenPayment', { checkoutId: second.checkoutId })).toEqual({ cancelled: true });
    expect(await cardsOf(second.checkoutId)).toEqual([]);
    // Many unpaid checkouts in a row leave at most one checkout's cards.
    for (let i = 0; i < 5; i += 1) await as('r7').call('createPaymentLinkStreetFlavorMerch', { ...base, checkoutId: `gift-end-many-${i}` });
    expect(await pendingOf('r7@example.org')).toBe(2);

    // Expired, then paid late: no cards to make live, so the payment is refunded and no order made.
    const [open] = await shop.db.select().from(checkouts).where(eq(checkouts.status, 'pending'));
    const jobs = await startJobQueue(shop.db.$client, () => undefined);
    try {
      const deps = { db: shop.db, jobs, provider: createLocalProvider('late-gift-secret'), publicUrl: shop.baseUrl };
      expect(await expireCheckout(deps, open!.id, new Date(Date.now() + 3_600_000))).toBe('expired');
      expect(await pendingOf('r7@example.org')).toBe(0);
      const late = { eventId: `evt-late-gift`, type: 'succeeded' as const, checkoutId: open!.id, sessionId: null, paymentIntentId: `pi_late_gift`, amountCents: null };
      expect(await applyPaymentEvent(deps, late)).toBe('applied');
      expect(await shop.db.select().from(orders).where(eq(orders.checkoutId, open!.id))).toEqual([]);
      const [refund] = await shop.db.select().from(paymentRefunds).where(eq(paymentRefunds.checkoutId, open!.id));
      expect(refund).toMatchObject({ reason: 'late payment: gift cards released' });
      expect(await cardsOf(open!.id)).toEqual([]);
    } finally {
      await jobs.stop();
    }
  });

  it('are listed for the label with their state, recipient and buyer, and a sold card’s mail can be sent again', async () => {
    expect((await errorOf(as('giver').call('listGiftCards', {}))).code).toBe('permission-denied');
    const { cards, more } = await as('boss').call('listGiftCards', {});
    expect(more).toBe(false);
    expect(cards.map((card) => card.status).sort()).toEqual(['redeemed', 'void']);
    expect(cards.every((card) => card.recipientEmail === gift.recipientEmail && card.buyerEmail === 'giver@example.org')).toBe(true);
    expect((await as('boss').call('listGiftCards', { status: 'void' })).cards).toHaveLength(1);
    const redeemed = cards.find((card) => card.status === 'redeemed')!;
    expect((await errorOf(as('boss').call('resendGiftCard', { giftCardId: redeemed.id }))).message).toBe(GIFT_CARD_MESSAGES.resendOnlyLive);
    expect((await errorOf(as('boss').call('resendGiftCard', { giftCardId: 'gc_missing' }))).code).toBe('not-found');
    expect((await errorOf(as('giver').call('resendGiftCard', { giftCardId: redeemed.id }))).code).toBe('permission-denied');

    // A sold card, not redeemed: its mail goes again, with the same code.
    const [variant] = await shop.db.select().from(productVariants).where(eq(productVariants.productId, giftId));
    const items = [{ id: giftId, variantId: variant!.id, qty: 1 }];
    const link = await as('giver').call('createPaymentLinkStreetFlavorMerch', {
      items,
      contact,
      shipping,
      gift: { recipientEmail: 'again@example.net', message: '' },
      useWallet: false,
      checkoutId: 'gift-again',
    });
    await pay(link.url, tokens.giver!);
    await vi.waitFor(() => expect(smtp.mailsTo('again@example.net')).toHaveLength(1), { timeout: 20_000, interval: 100 });
    const sold = (await as('boss').call('listGiftCards', { status: 'active' })).cards;
    expect(sold).toHaveLength(1);
    await expect(as('boss').call('resendGiftCard', { giftCardId: sold[0]!.id })).resolves.toEqual({ ok: true });
    await vi.waitFor(() => expect(smtp.mailsTo('again@example.net')).toHaveLength(2), { timeout: 20_000, interval: 100 });
    const [once, twice] = smtp.mailsTo('again@example.net').map((mail) => CODE.exec(mail.decoded)![0]);
    expect(twice).toBe(once);
  });
});
