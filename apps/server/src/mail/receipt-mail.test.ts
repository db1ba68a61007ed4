// Issue 39 item 15: receipts whose amounts add up (a card-fee line), that promise shipping only
// for a parcel, and a test payment page that lists shipping and tax; read as a real SMTP peer
// receives the mails and as the payer's browser gets the page.
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatUsd } from '@storefront/domain/catalog.ts';
import { quotedTotals } from '@storefront/domain/pricing.ts';
import { startTestApp, type TestApp } from '../../test/app.ts';
import { startSmtpPeer, type ReceivedMail } from '../../test/smtp.ts';
import { releaseProduct } from '../catalog/catalog.service.ts';
import { products, users } from '../db/schema/index.ts';
import { grantCredits } from '../wallet/wallet.commands.ts';
import { RECEIPT_TEXTS } from './templates.ts';

let shop: TestApp;
let smtp: Awaited<ReturnType<typeof startSmtpPeer>>;
const tokens: Record<string, string> = {};
let teeId: string;
let downloadId: string;
let giftId: string;

const contact = { name: 'Fan', email: 'fan@example.org', phone: '' };
const shipping = { name: 'Fan', line1: '1 Main St', line2: '', city: 'Springfield', state: 'IL', postal_code: '62701', country: 'US' };
const as = (name: string) => shop.functions(() => tokens[name]);

beforeAll(async () => {
  smtp = await startSmtpPeer();
  shop = await startTestApp({
    config: { env: { SMTP_URL: smtp.url } },
    async seed({ db }) {
      teeId = await releaseProduct(db, { name: 'Label Tee', description: 'Tee', priceCents: 2500, images: ['/content/covers/cover-01.svg'] });
      downloadId = await releaseProduct(db, { name: 'Low Tone EP', description: 'Music', priceCents: 700, images: ['/content/covers/cover-02.svg'] });
      giftId = await releaseProduct(db, { name: 'Gift Card', description: 'For a fan', priceCents: 2500, images: ['/content/covers/cover-03.svg'] });
      await db.update(products).set({ digital: true }).where(eq(products.id, downloadId));
      await db.update(products).set({ giftCard: true }).where(eq(products.id, giftId));
    },
  });
  for (const name of ['fan', 'boss']) {
    await shop.account(name);
    tokens[name] = await shop.signIn(`${name}@example.org`);
  }
  await shop.db.update(users).set({ role: 'admin' }).where(eq(users.email, 'boss@example.org'));
  await grantCredits(shop.db, 'fan@example.org', '10', 'receipt-test');
}, 240_000);

afterAll(async () => {
  await shop?.close();
  await smtp?.close();
});

/** The money lines of the receipt's text part, label to cents, in their order. */
function moneyLines(mail: ReceivedMail): [string, number][] {
  const text = mail.decoded.split(/Content-Type: text\/html/i)[0]!;
  return [
    ...text.matchAll(/^(Subtotal|Discount[^$\n]*|Shipping[^$\n]*|Tax[^$\n]*|Total|Wallet credit applied|Card processing fee|Charged to card) (-?)\$([\d,]+)\.(\d\d)\r?$/gm),
  ].map((match) => [match[1]!, (match[2] ? -1 : 1) * (Number(match[3]!.replaceAll(',', '')) * 100 + Number(match[4]))]);
}

async function pay(url: string) {
  const paid = await fetch(`${shop.baseUrl}${url}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { authorization: `Bearer ${tokens.fan}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'card=4242424242424242',
  });
  expect(paid.headers.get('location')).toMatch(/redirect_status=succeeded/);
}

const orderIdOf = async (checkoutId: string) => ((await shop.db.execute(sql`SELECT id FROM "order" WHERE checkout_id LIKE ${`%${checkoutId}`}`)).rows[0] as { id: string }).id;

describe('receipts (issue 39)', () => {
  it('a card and wallet order: the payment page and the receipt list shipping, tax and the card fee, adding up to the charge', async () => {
    const items = [{ id: teeId, qty: 4 }];
    const quote = await as('fan').call('quoteCheckout', {
      items,
      useWallet: true,
      destination: { country: shipping.country, state: shipping.state, postal_code: shipping.postal_code },
    });
    expect(quote.walletAppliedCents).toBe(1000);
    expect(quote.cardFeeCents).toBeGreaterThan(0);
    const link = await as('fan').call('createPaymentLinkStreetFlavorMerch', { items, useWallet: true, contact, shipping, quote: quotedTotals(quote), checkoutId: 'receipt-card' });

    // The test payment page: every line, and they add up to the amount on its Pay button.
    const page = await (await fetch(`${shop.baseUrl}${link.url}`, { headers: { authorization: `Bearer ${tokens.fan}` } })).text();
    for (const [label, cents] of [
      ['Subtotal', quote.subtotalCents],
      ['Shipping', quote.shippingCents],
      ['Tax', quote.taxCents],
      ['Total', quote.totalCents],
      ['Wallet credit applied', -quote.walletAppliedCents],
      ['Card processing fee', quote.cardFeeCents],
      ['Charged to card', quote.chargeCents],
    ] as const) {
      expect(page, label).toMatch(new RegExp(`${label}(?: \\([^)]*\\))?: ${formatUsd(cents).replace('$', '\\$')}`));
    }
    expect(quote.subtotalCents + quote.shippingCents + quote.taxCents).toBe(quote.totalCents);
    expect(quote.totalCents - quote.walletAppliedCents + quote.cardFeeCents).toBe(quote.chargeCents);
    expect(page).toContain(`Pay ${formatUsd(quote.chargeCents)}`);

    await pay(link.url);
    const orderId = await orderIdOf('receipt-card');
    const mail = await smtp.waitForText('fan@example.org', `Thank you for your order ${orderId}`);
    const lines = moneyLines(mail);
    expect(lines.map(([label]) => label.replace(/ \(.*\)$/, ''))).toEqual([
      'Subtotal',
      'Shipping',
      'Tax',
      'Total',
      'Wallet credit applied',
      'Card processing fee',
      'Charged to card',
    ]);
    const cents = Object.fromEntries(lines.map(([label, value]) => [label.replace(/ \(.*\)$/, ''), value]));
    expect(cents.Subtotal! + cents.Shipping! + cents.Tax!).toBe(cents.Total);
    expect(cents.Total! + cents['Wallet credit applied']! + cents['Card processing fee']!).toBe(cents['Charged to card']);
    expect(cents['Charged to card']).toBe(quote.chargeCents);
    expect(mail.decoded).toContain(RECEIPT_TEXTS.willShip);
  });

  it('a download bought with the wallet: the receipt does not promise shipping', async () => {
    await grantCredits(shop.db, 'fan@example.org', '20', 'receipt-download');
    const items = [{ id: downloadId, qty: 1 }];
    const quote = await as('fan').call('quoteCheckout', { items, useWallet: true });
    await as('fan').call('completeWalletOnlyOrderStreetFlavor', { items, contact, quote: quotedTotals(quote), checkoutId: 'receipt-download' });
    const orderId = await orderIdOf('receipt-download');
    const mail = await smtp.waitForText('fan@example.org', `Thank you for your order ${orderId}`);
    expect(moneyLines(mail).map(([label]) => label)).toEqual(['Subtotal', 'Shipping', 'Tax', 'Total', 'Wallet credit applied']);
    expect(mail.decoded).not.toContain(RECEIPT_TEXTS.willShip);
    expect(mail.decoded).not.toContain('ships');
  });

  it('a gift card: the receipt says it goes by email, not that it ships', async () => {
    const items = [{ id: giftId, qty: 1 }];
    const quote = await as('fan').call('quoteCheckout', { items, useWallet: false });
    const link = await as('fan').call('createPaymentLinkStreetFlavorMerch', {
      items,
      useWallet: false,
      contact,
      quote: quotedTotals(quote),
      checkoutId: 'receipt-gift',
      gift: { recipientEmail: 'friend@example.org', message: 'Enjoy' },
    });
    await pay(link.url);
    const orderId = await orderIdOf('receipt-gift');
    const mail = await smtp.waitForText('fan@example.org', `Thank you for your order ${orderId}`);
    expect(mail.decoded).toContain(RECEIPT_TEXTS.giftCardSent);
    expect(mail.decoded).not.toContain(RECEIPT_TEXTS.willShip);
    const cents = Object.fromEntries(moneyLines(mail));
    expect(cents.Total! + cents['Card processing fee']!).toBe(cents['Charged to card']);
  });
});
