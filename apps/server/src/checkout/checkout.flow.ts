import { postEarnings } from './earnings.step.ts';
import { randomBytes } from 'node:crypto';
import type { GiftInput } from '@storefront/domain/gift-card-schemas.ts';
import { GIFT_CARD_MESSAGES } from '@storefront/domain/gift-cards.ts';
import type { CartItems, Contact, Shipping } from '@storefront/domain/pricing-schemas.ts';
import { CHECKOUT_MESSAGES, sameQuote, type Quote } from '@storefront/domain/pricing.ts';
import { rememberAddress } from '../accounts/addresses.service.ts';
import { customerLimits, pricedVariants, shortStockOf, takeStock, takeStockStatement, withParts } from '../catalog/variants.service.ts';
import type { Db } from '../db/client.ts';
import { runTransaction, runTransactionEndingWith, type Tx } from '../db/transaction.ts';
import { grantForOrder } from '../digital/sales.service.ts';
import { followForPurchase } from '../fans/follows.service.ts';
import { checkDropPurchase } from '../drops/drop-admission.service.ts';
import { AppError } from '../errors.ts';
import type { JobQueue } from '../jobs/queue.ts';
import { publishStock } from '../live/live.publish.ts';
import { insertOrder, orderOfCheckout, unitsBoughtBy } from '../orders/orders.service.ts';
import { scheduleTaxRecord } from '../orders/tax.step.ts';
import type { PaymentProvider } from '../payments/provider.ts';
import type { TaxCalculator } from '../shipping/stripe-tax.ts';
import { debit, getBalance, hold } from '../wallet/wallet.service.ts';
import { cartLines, checkoutLines, demandOf, orderLines, overLimit, ranOut, unitsByVariant, type StockLine } from './cart.ts';
import { checkoutOf, endPending, findCheckout, heldByBuyer, insertCheckout, lockBuyer, openCheckoutOf, walletOrderStart, type EndedCheckout } from './checkouts.service.ts';
import { refuseDigitalConflicts } from './digital.step.ts';
import { checkOncePerAccount, judgeCode, keepCodeDeadline, takeCodeUse } from './discount.step.ts';
import { reserveGifts } from './gift-cards.step.ts';
import { orderRecord, pricedRecord } from './order-record.ts';
import { existingPaymentUrl, makeLink, safeReturnPath, sessionUrl } from './payment-link.step.ts';
import { checkAddress, externalTaxFor, loadPricing, methodsFor, priceCheckout, priceOrRefuse, quoteOf, refuseStale, type Where } from './pricing.step.ts';
import { sendReceipt } from './receipt.step.ts';
import { closeProviderSessions, releaseHolds, replaceOpenCheckout } from './release.step.ts';

/**
 * Checkout as a flow of named steps (issue 23, decision 044). Each step calls the service that
 * owns its tables: take stock (catalog), take wallet (wallet), make link (payments' provider),
 * then the payment's own steps in payment.flow.ts (apply payment, late payment, release).
 *
 *   wallet-only order: price (priceCheckout) -> [lock buyer -> check limits if limited] -> write order (orderRecord)
 *                      -> use drop admission -> grant downloads -> send receipt -> debit wallet -> take code use
 *                      -> take stock -> commit
 *   card checkout:     price (priceCheckout) -> lock buyer -> replace open checkout -> check limits
 *                      -> check drop admission -> write checkout -> take wallet -> schedule release at the deadline
 *                      -> hold code use -> reserve gift cards -> take stock -> commit -> make link
 *
 * Stock is always the last statement before the commit: the variant row is a drop's hottest
 * row, locked from its UPDATE to the commit (decision 027), and "short" is that UPDATE's answer.
 */

/** How long a card checkout holds its units and wallet credit unless CHECKOUT_HOLD_MINUTES says otherwise. */
export const DEFAULT_HOLD_MS = 10 * 60 * 1000;

export interface CheckoutDeps {
  db: Db;
  jobs: JobQueue;
  provider: PaymentProvider;
  publicUrl: string;
  /** How long a card checkout holds (CHECKOUT_HOLD_MINUTES); DEFAULT_HOLD_MS when unset. */
  holdMs?: number;
  /** Stripe Tax (decision 051), used when the shipping-and-tax settings choose it; null without a Stripe key. */
  tax?: TaxCalculator | null;
  /** AUTH_SECRET and old secrets: verify drop admissions (decision 066); none: a drop line is refused. */
  admissionSecrets?: readonly string[];
}

/** Current database prices of the cart; unknown or inactive items are named and refused, and lines that ran out too. */
export async function priceCart(db: Db | Tx, items: CartItems): Promise<StockLine[]> {
  return cartLines(
    items,
    await pricedVariants(
      db,
      items.map((item) => item.id),
    ),
  );
}

/**
 * The quote the checkout shows, for what is typed of the address so far and the chosen method
 * (issue 26). With a discount code (issue 27): priced with it when it applies, and otherwise
 * priced without it and `discountRefused` says why (the shop shows it by the code).
 */
export async function quoteCheckout(
  db: Db,
  userId: string,
  items: CartItems,
  useWallet: boolean,
  options: Where & { discountCode?: string | undefined } = {},
  tax?: TaxCalculator | null,
) {
  const { discountCode, ...where } = options;
  const priced = await priceCart(db, items);
  await refuseDigitalConflicts(db, userId, priced);
  const lines = orderLines(priced);
  // A gift card (issue 27, decision 053) is paid by card alone: the quote says why the wallet or the code is not used.
  const giftCard = priced.some((line) => line.giftCard);
  const walletRefused = giftCard && useWallet ? GIFT_CARD_MESSAGES.noWallet : null;
  if (giftCard) useWallet = false;
  const codeRefused = giftCard && discountCode?.trim() ? GIFT_CARD_MESSAGES.noCode : null;
  const judged = discountCode?.trim() && !codeRefused ? await judgeCode(db, userId, discountCode, priced) : undefined;
  const applied = judged && 'applied' in judged ? judged.applied : undefined;
  // Credit an open card payment holds counts (issue 39): placing this order ends that payment
  // first and frees it (createPaymentLink's "replace" step; the checkout page cancels it before a wallet order).
  const { balanceCents, heldCents } = await getBalance(db, userId);
  const config = await loadPricing(db);
  // Priced from the cart's lines as priced (their digital flags: issue 28), shown as order lines.
  const external = await externalTaxFor(tax, config, priced, where, applied?.discount);
  return {
    ...priceOrRefuse(priced, balanceCents + heldCents, useWallet, where, config, external, applied?.discount),
    lines,
    shippingMethods: methodsFor(priced, where, config),
    discountCode: applied?.code ?? null,
    discountRefused: codeRefused ?? (judged && 'refused' in judged ? judged.refused : null),
    giftCard,
    walletRefused,
  };
}

function newPaymentIntentId(prefix: string): string {
  return `${prefix}_${randomBytes(12).toString('base64url')}`;
}

/**
 * Step "check limits": the lines past a variant's per-customer limit, counting the buyer's
 * orders and open checkouts. Runs under the buyer's lock (lockBuyer), so two of their requests
 * at once are counted one after the other.
 */
async function checkLimits(tx: Tx, userId: string, lines: StockLine[]): Promise<void> {
  const limits = await customerLimits(tx, [...unitsByVariant(lines).keys()]);
  if (limits.size === 0) return;
  const limited = [...limits.keys()];
  // One statement at a time: a transaction is one connection.
  const bought = await unitsBoughtBy(tx, userId, limited);
  const held = await heldByBuyer(tx, userId, limited);
  const already = new Map(limited.map((id) => [id, (bought.get(id) ?? 0) + (held.get(id) ?? 0)]));
  const refused = overLimit(lines, limits, already);
  if (refused) throw refused;
}

/**
 * Step "take stock", the transaction's last: the cart's counted units, sold (`held` false) or
 * set aside (true). Sent with the COMMIT in one round trip (runTransactionEndingWith), so a
 * drop's variant row is locked for that statement and the commit only; "short" is its own
 * UPDATE's answer (SQLSTATE SF001), and rolls everything back.
 */
async function takeStockLast(tx: Tx, lines: StockLine[], held: boolean): Promise<string> {
  const demand = demandOf(lines);
  // Said after the commit with the units left (decision 067): no notify while the row is locked.
  await publishStock(
    tx,
    demand.map(([variantId]) => variantId),
  );
  const statement = takeStockStatement(demand, held);
  if (statement !== null) return statement;
  // Not a plain id (never for ours): taken here, before the commit.
  const short = await takeStock(tx, demand, held);
  if (short.length > 0) throw ranOut(lines, short);
  return '';
}

/** The stock step's refusal, named ("... is sold out"), or the error as it was. */
async function refusalOf(db: Db, error: unknown, lines: StockLine[]): Promise<unknown> {
  const short = await shortStockOf(db, error, demandOf(lines));
  return short ? ranOut(lines, [short]) : error;
}

/**
 * Wallet-only order: re-price, compare with the reviewed quote, then in one transaction
 * write the order (once per checkout id), debit the wallet with a conditional update and
 * take the stock. A retried call with the same checkout id returns the first order and
 * charges nothing.
 */
export async function completeWalletOnlyOrder(
  deps: CheckoutDeps,
  userId: string,
  input: {
    items: CartItems;
    contact: Contact;
    shipping?: Shipping | undefined;
    quote: Partial<Quote>;
    checkoutId: string;
    shippingMethodId?: string;
    discountCode?: string;
    followArtists?: boolean | undefined;
  },
): Promise<{ orderId: string; paymentIntentId: string; created: boolean }> {
  if (input.shipping) checkAddress(input.shipping);
  const checkoutId = `${userId}:${input.checkoutId}`;
  const start = await walletOrderStart(
    deps.db,
    userId,
    checkoutId,
    input.items.map((item) => item.id),
  );
  if (!start) throw new AppError('unauthenticated', 'Please sign in first.');
  if (start.orderId && start.paymentIntentId) return { orderId: start.orderId, paymentIntentId: start.paymentIntentId, created: false };
  // A bundle's parts (issue 27): one more read, only when the cart has a bundle.
  const lines = cartLines(input.items, start.products.some((variant) => variant.bundle) ? await withParts(deps.db, start.products) : start.products);
  const priced = await priceCheckout(deps, userId, lines, {
    useWallet: true,
    shipping: input.shipping,
    shippingMethodId: input.shippingMethodId,
    discountCode: input.discountCode,
  });
  // This balance only prices the order: the conditional debit decides whether it is there.
  const fresh = quoteOf(priced, start.balanceCents ?? 0, true);
  refuseCardOrder(fresh, input.quote);
  // A bundle's parts may carry a limit set after the bundle was saved (issue 40 item 6): checked too.
  const limited = lines.some((line) => line.components) || start.products.some((variant) => variant.limited && lines.some((line) => line.variantId === variant.variantId));
  const basis = pricedRecord(priced, fresh, orderLines(lines), input);
  return runTransactionEndingWith(
    deps.db,
    async (tx) => {
      if (limited) await lockBuyer(tx, userId);
      if (limited) await checkLimits(tx, userId, lines);
      if (priced.code) await checkOncePerAccount(tx, userId, priced.code, limited);
      const payment = { userId, checkoutId, paymentIntentId: newPaymentIntentId('wallet'), walletAppliedCents: fresh.walletAppliedCents, chargedCents: 0 };
      const record = orderRecord(basis, payment);
      const order = await insertOrder(tx, record);
      if (!order.created) return { result: { ...(await orderOfCheckout(tx, checkoutId))!, created: false } };
      // Step "use drop admission" (decision 066): a drop's lines need the buyer's admission, used by this order.
      await checkDropPurchase(tx, deps.admissionSecrets ?? [], userId, lines, { kind: 'order', orderId: order.id });
      const digital = await grantDownloads(tx, start.products, { userId, orderId: order.id, productIds: lines.map((line) => line.id) });
      // Step "post earnings" (decision 075): the royalty ledger, with the order.
      await postEarnings(tx, order.id);
      await sendReceipt(deps, tx, { email: start.email, name: start.name }, order.id, record, digital);
      if (input.shipping) await rememberAddress(tx, userId, input.shipping);
      // Step "follow what was bought" (decision 074): with the box ticked, once (only an order this call created).
      if (input.followArtists)
        await followForPurchase(
          tx,
          userId,
          lines.map((line) => line.id),
        );
      await scheduleTaxRecord(deps.jobs, tx, order.id, record.taxCalculationId);
      // The conditional debit: it locks the wallet row until the commit, and one buyer's
      // concurrent orders queue on that lock, so it comes late.
      await debit(tx, userId, fresh.walletAppliedCents, order.id);
      // Step "take code use": after the wallet's row, before the variants' (the same order everywhere).
      if (priced.code) await takeCodeUse(tx, { code: priced.code, userId, checkoutId, status: 'used', discountCents: fresh.discountCents });
      return { result: { orderId: order.id, paymentIntentId: payment.paymentIntentId, created: true }, last: await takeStockLast(tx, lines, false) };
    },
    { isolationLevel: 'read committed' },
  ).catch(async (error: unknown) => {
    throw await refusalOf(deps.db, error, lines);
  });
}

/** A wallet-only order the wallet no longer covers is a card checkout; any other change to the reviewed quote is refused by name. */
function refuseCardOrder(fresh: Quote, reviewed: Partial<Quote>): void {
  // Not enough credit any more, or it never was: this is a card checkout.
  if (fresh.amountDueCents > 0 && sameQuote(fresh, reviewed)) throw new AppError('failed-precondition', CHECKOUT_MESSAGES.insufficientWallet);
  refuseStale(fresh, reviewed);
}

/**
 * Step "grant downloads" (issue 28): digital items and what physical ones carry, in the order's
 * transaction. Read only when the start's read found a product linked to a release, or a bundle
 * (its parts' products were not in that read): one round trip less for any other order (issue 35).
 */
async function grantDownloads(
  tx: Tx,
  products: { grants?: boolean | null; bundle?: boolean | null }[],
  order: { userId: string; orderId: string; productIds: string[] },
): Promise<boolean> {
  if (!products.some((variant) => variant.grants || variant.bundle)) return false;
  return grantForOrder(tx, order);
}

export interface PaymentLinkInput {
  items: CartItems;
  useWallet: boolean;
  contact: Contact;
  shipping?: Shipping | undefined;
  redirectUrl?: string;
  checkoutId?: string;
  shippingMethodId?: string;
  quote?: Partial<Quote>;
  discountCode?: string;
  gift?: GiftInput;
  /** The "Follow the artists" box (decision 074): kept on the checkout, followed when the payment makes the order. */
  followArtists?: boolean | undefined;
}

/**
 * Card (+ wallet) checkout: a pending checkout holding the wallet part and the units until its
 * deadline (CHECKOUT_HOLD_MINUTES), then a hosted payment page for the rest. The order is made
 * only by a verified payment event (payment.flow.ts). The buyer's open checkout, if any, is
 * replaced (its holds released in the same transaction): one open card checkout per account.
 * A repeated or concurrent call with the same id gets the same payment page.
 */
export async function createPaymentLink(deps: CheckoutDeps, userId: string, input: PaymentLinkInput): Promise<{ url: string; checkoutId: string }> {
  if (input.shipping) checkAddress(input.shipping);
  const priced = await priceCheckout(deps, userId, await priceCart(deps.db, input.items), input);
  const { lines, code } = priced;
  const checkoutId = `${userId.slice(0, 8)}_${input.checkoutId ?? randomBytes(12).toString('base64url')}`;
  const returnUrl = safeReturnPath(input.redirectUrl);
  let expiresAt = new Date(Date.now() + (deps.holdMs ?? DEFAULT_HOLD_MS));

  type Started = { created: false; ownerId: string; replaced: EndedCheckout[] } | { created: true; priced: Quote; replaced: EndedCheckout[] };
  const start = await runTransactionEndingWith<Started>(
    deps.db,
    async (tx) => {
      await lockBuyer(tx, userId);
      const existing = await findCheckout(tx, checkoutId);
      if (existing) return { result: { created: false, ownerId: existing.userId, replaced: [] } };
      const replaced = await replaceOpenCheckout(tx, userId, checkoutId);
      await checkLimits(tx, userId, lines);
      expiresAt = await holdUntilAdmissionEnds(deps, tx, userId, lines, checkoutId, expiresAt);
      if (code) expiresAt = keepCodeDeadline(replaced, code.code, expiresAt);
      if (code) await checkOncePerAccount(tx, userId, code, true);
      const fresh = quoteOf(priced, (await getBalance(tx, userId)).balanceCents, input.useWallet);
      if (input.quote) refuseStale(fresh, input.quote);
      if (fresh.amountDueCents === 0) throw new AppError('failed-precondition', 'Your wallet covers this order: place it with your wallet instead.');
      const held = { walletHeldCents: fresh.walletAppliedCents, amountDueCents: fresh.amountDueCents, chargeCents: fresh.chargeCents };
      await insertCheckout(tx, {
        id: checkoutId,
        userId,
        provider: deps.provider.name,
        ...pricedRecord(priced, fresh, checkoutLines(lines), input),
        ...held,
        returnUrl,
        followArtists: input.followArtists ?? false,
        expiresAt,
      });
      if (input.shipping) await rememberAddress(tx, userId, input.shipping);
      // Step "take wallet".
      await hold(tx, userId, fresh.walletAppliedCents, checkoutId);
      // Step "release at the deadline": a job due when the hold ends (payment.flow.ts expireCheckout).
      await deps.jobs.sendInTransaction(tx, 'expire-checkout', { checkoutId }, { startAfter: expiresAt });
      // Step "hold code use" (issue 27): held like the units, released with them, captured with the payment.
      if (code) await takeCodeUse(tx, { code, userId, checkoutId, status: 'held', discountCents: fresh.discountCents });
      await reserveGifts(tx, checkoutId, userId, priced.gifts);
      // Step "take stock", last: set aside until the payment event or the deadline.
      return { result: { created: true, priced: fresh, replaced }, last: await takeStockLast(tx, lines, true) };
    },
    { isolationLevel: 'read committed' },
  ).catch(async (error: unknown) => {
    throw await refusalOf(deps.db, error, lines);
  });
  await closeProviderSessions(deps, start.replaced);
  if (!start.created) {
    if (start.ownerId !== userId) throw new AppError('permission-denied', 'This checkout belongs to someone else.');
    return { url: await existingPaymentUrl(deps, checkoutId), checkoutId };
  }
  return { url: await makeLink(deps, checkoutId, lines, start.priced, input.contact.email, expiresAt), checkoutId };
}

/** Step "check drop admission" (decision 066): a drop's lines need the buyer's admission, and the hold ends no later than it. */
async function holdUntilAdmissionEnds(deps: CheckoutDeps, tx: Tx, userId: string, lines: StockLine[], checkoutId: string, expiresAt: Date): Promise<Date> {
  const drop = await checkDropPurchase(tx, deps.admissionSecrets ?? [], userId, lines, { kind: 'checkout', checkoutId });
  return drop.holdUntil && drop.holdUntil < expiresAt ? drop.holdUntil : expiresAt;
}

/**
 * The buyer left the payment page ("Back to checkout", the checkout page's Cancel, or an
 * explicit cancel): the checkout ends and its held wallet credit and units are available
 * again at once, exactly once. False when the checkout is not theirs or no longer pending.
 */
export async function cancelCheckout(deps: CheckoutDeps, userId: string, checkoutId: string): Promise<boolean> {
  const cancelled = await runTransaction(
    deps.db,
    async (tx) => {
      const rows = await endPending(tx, checkoutOf(userId, checkoutId), 'cancelled');
      await releaseHolds(tx, rows);
      return rows;
    },
    { isolationLevel: 'read committed' },
  );
  await closeProviderSessions(deps, cancelled);
  return cancelled.length > 0;
}

/** The buyer's open payment, for /checkout to offer Resume or Cancel (with the wallet part it holds). */
export async function openPaymentOf(deps: CheckoutDeps, userId: string) {
  const checkout = await openCheckoutOf(deps.db, userId);
  if (!checkout || checkout.expiresAt <= new Date()) return { checkout: null };
  return {
    checkout: {
      checkoutId: checkout.id,
      url: checkout.paymentUrl ?? sessionUrl(deps, checkout),
      items: checkout.items.map(({ id, variantId, name, qty, unitCents }) => ({ id, ...(variantId ? { variantId } : {}), name, qty, unitCents })),
      walletHeldCents: checkout.walletHeldCents,
      chargeCents: checkout.chargeCents,
      totalCents: checkout.subtotalCents - checkout.discountCents + checkout.shippingCents + checkout.taxCents,
      expiresAt: checkout.expiresAt.toISOString(),
    },
  };
}
