import { randomBytes } from 'node:crypto';
import { and, eq, inArray, lt, ne, sql, type SQL } from 'drizzle-orm';
import type { CartItems, Contact, Shipping } from '@storefront/domain/pricing-schemas.ts';
import { CHECKOUT_MESSAGES, MAX_ORDER_TOTAL_CENTS, quote, sameQuote, type Quote } from '@storefront/domain/pricing.ts';
import { cartLineId, demandByVariant, lineName, lineRanOutMessage, resolveVariant } from '@storefront/domain/variants.ts';
import { captureStock, releaseStock, sortedDemand, takeStock, type StockDemand } from '../catalog/variants.service.ts';
import type { Db } from '../db/client.ts';
import { checkouts, orders, paymentRefunds, products, productVariants, users, wallets, type CheckoutLine } from '../db/schema/index.ts';
import { prepared } from '../db/prepared.ts';
import { isRetryableTransactionError, runTransaction, type Tx } from '../db/transaction.ts';
import { rememberAddress } from '../accounts/addresses.service.ts';
import { AppError } from '../http/errors.ts';
import type { JobQueue } from '../jobs/queue.ts';
import { lateRefundMail, receiptMail } from '../mail/templates.ts';
import { insertOrder, type OrderLine } from '../orders/orders.service.ts';
import { publishLive } from '../live/live.publish.ts';
import { recordProviderEventOnce } from '../payments/provider-events.service.ts';
import { RefundRefusedError, type PaymentEvent, type PaymentProvider } from '../payments/provider.ts';
import { capture, debit, getBalance, hold, release } from '../wallet/wallet.service.ts';
import { isSameSitePath } from '@storefront/domain/site-path.ts';

/** How long a card checkout (and its wallet hold) may stay open: Stripe's minimum. */
export const CHECKOUT_TTL_MS = 30 * 60 * 1000;

export interface CheckoutDeps {
  db: Db;
  jobs: JobQueue;
  provider: PaymentProvider;
  publicUrl: string;
}

/** One variant of an active product, at its database price (issue 15). */
interface PricedVariant {
  id: string;
  name: string;
  priceCents: number;
  variantId: string;
  optionValues: string[];
  /** null: unlimited. */
  stock: number | null;
}

/** A priced cart line and whether its variant's stock is counted. */
export type StockLine = OrderLine & { variantId: string; counted: boolean };

/** The cart's lines at these prices; unknown or inactive items (and variants) are named and refused. */
function cartLines(items: CartItems, priced: PricedVariant[]): StockLine[] {
  const byProduct = new Map<string, PricedVariant[]>();
  for (const row of priced) byProduct.set(row.id, [...(byProduct.get(row.id) ?? []), { ...row, id: row.variantId, productId: row.id } as PricedVariant & { productId: string }]);
  const resolved = items.map((item) => ({
    item,
    variant: resolveVariant(byProduct.get(item.id) ?? [], item.id, item.variantId) as (PricedVariant & { productId: string }) | undefined,
  }));
  const missing = resolved.filter(({ variant }) => !variant).map(({ item }) => cartLineId(item.id, item.variantId));
  if (missing.length > 0) {
    throw new AppError('failed-precondition', `Some items in your cart are no longer available (${missing.join(', ')}). Remove them to continue.`, { unavailable: missing });
  }
  const lines = resolved.map(({ item, variant }) => ({
    id: item.id,
    variantId: variant!.variantId,
    name: lineName(variant!.name, variant!.optionValues),
    qty: item.qty,
    unitCents: variant!.priceCents,
    counted: variant!.stock !== null,
    stock: variant!.stock,
  }));
  // Lines drawing on the same variant are summed (a cart cannot oversell itself).
  const demand = demandByVariant(lines.filter((line) => line.counted));
  const short = lines.filter((line) => line.stock !== null && demand.get(line.variantId)! > line.stock);
  if (short.length > 0)
    throw outOfStock(short.map((line) => ({ lineId: cartLineId(line.id, line.variantId === line.id ? undefined : line.variantId), name: line.name, left: line.stock ?? 0 })));
  if (quote(lines, 0, false).totalCents > MAX_ORDER_TOTAL_CENTS) throw new AppError('invalid-argument', CHECKOUT_MESSAGES.orderTooLarge);
  return lines.map(({ stock: _stock, ...line }) => line);
}

/** "Only 2 of "Logo Tee - L" are left…": the lines that ran out, named, with what is left of each. */
function outOfStock(lines: { lineId: string; name: string; left: number }[]): AppError {
  return new AppError('failed-precondition', [...new Set(lines.map((line) => lineRanOutMessage(line.name, line.left)))].join(' '), {
    outOfStock: lines.map(({ lineId, left }) => ({ lineId, left })),
  });
}

/** What a cart takes from counted variants, in lock order. */
function demandOf(lines: { variantId?: string; qty: number; counted?: boolean }[]): StockDemand {
  return sortedDemand(demandByVariant(lines.filter((line) => line.counted && line.variantId).map((line) => ({ variantId: line.variantId!, qty: line.qty }))));
}

/** The variants of these products that are on sale, at their prices. */
function pricedVariantsQuery(db: Db | Tx, productIds: string[]) {
  return db
    .select({
      id: products.id,
      name: products.name,
      priceCents: sql<number>`coalesce(${productVariants.priceCents}, ${products.priceCents})`.mapWith(Number),
      variantId: productVariants.id,
      optionValues: productVariants.optionValues,
      stock: productVariants.stock,
    })
    .from(products)
    .innerJoin(productVariants, eq(productVariants.productId, products.id))
    .where(and(inArray(products.id, productIds), eq(products.isActive, true)));
}

/** Current database prices of the cart; unknown or inactive items are named and refused, and lines that ran out too. */
export async function priceCart(db: Db | Tx, items: CartItems): Promise<StockLine[]> {
  return cartLines(
    items,
    await pricedVariantsQuery(
      db,
      items.map((item) => item.id),
    ),
  );
}

/** A stock update found less than the cart wants (another buyer was first): the lines, named. */
function ranOut(lines: StockLine[], short: { variantId: string; left: number }[]): AppError {
  return outOfStock(
    short.map(({ variantId, left }) => {
      const line = lines.find((candidate) => candidate.variantId === variantId)!;
      return { lineId: cartLineId(line.id, line.variantId === line.id ? undefined : line.variantId), name: line.name, left };
    }),
  );
}

export async function quoteCheckout(db: Db, userId: string, items: CartItems, useWallet: boolean): Promise<Quote & { lines: OrderLine[] }> {
  const lines = (await priceCart(db, items)).map(({ counted: _counted, ...line }) => line);
  const { balanceCents } = await getBalance(db, userId);
  return { ...quote(lines, balanceCents, useWallet), lines };
}

function newPaymentIntentId(prefix: string): string {
  return `${prefix}_${randomBytes(12).toString('base64url')}`;
}

interface Buyer {
  email: string;
  name: string;
}

async function buyerOf(tx: Tx, userId: string): Promise<Buyer | undefined> {
  const [buyer] = await tx.select({ email: users.email, name: users.name }).from(users).where(eq(users.id, userId));
  return buyer;
}

async function enqueueReceipt(tx: Tx, jobs: JobQueue, publicUrl: string, buyer: Buyer, orderId: string, lines: OrderLine[], totals: Parameters<typeof receiptMail>[2]['totals']) {
  await jobs.sendInTransaction(tx, 'send-email', receiptMail(buyer.email, buyer.name, { id: orderId, items: lines, totals }, `${publicUrl}/my-orders`));
}

function walletOrderStartQuery(db: Db) {
  return db
    .select({
      email: users.email,
      name: users.name,
      balanceCents: wallets.balanceCents,
      orderId: orders.id,
      paymentIntentId: orders.paymentIntentId,
      products: sql<PricedVariant[]>`(
        SELECT coalesce(json_agg(json_build_object('id', p.id, 'name', p.name, 'priceCents', coalesce(v.price_cents, p.price_cents),
          'variantId', v.id, 'optionValues', v.option_values, 'stock', v.stock)), '[]')
        FROM ${products} p JOIN ${productVariants} v ON v.product_id = p.id
        WHERE p.id = ANY(${sql.placeholder('productIds')}::text[]) AND p.is_active)`,
    })
    .from(users)
    .leftJoin(wallets, eq(wallets.userId, users.id))
    .leftJoin(orders, eq(orders.checkoutId, sql.placeholder('checkoutId')))
    .where(eq(users.id, sql.placeholder('userId')))
    .prepare('wallet_order_start');
}

/**
 * What a wallet-only order starts from, in one read (a prepared statement): the buyer (for
 * the receipt), their balance, the order already made for this checkout id if any, and the
 * cart's active products with their database prices.
 */
async function walletOrderStart(db: Db, userId: string, checkoutId: string, items: CartItems) {
  const [row] = await prepared(db, 'wallet_order_start', walletOrderStartQuery).execute({ userId, checkoutId, productIds: items.map((item) => item.id) });
  return row;
}

/**
 * Wallet-only order: re-price, compare with the reviewed quote, then in one transaction
 * write the order (once per checkout id) and debit the wallet with a conditional update.
 * A retried call with the same checkout id returns the first order and charges nothing.
 * Seven round trips with the session check (decision 015): each order a buyer makes pays
 * every one of them.
 */
export async function completeWalletOnlyOrder(
  deps: CheckoutDeps,
  userId: string,
  input: { items: CartItems; contact: Contact; shipping: Shipping; quote: Partial<Quote>; checkoutId: string },
): Promise<{ orderId: string; paymentIntentId: string; created: boolean }> {
  const checkoutId = `${userId}:${input.checkoutId}`;
  const start = await walletOrderStart(deps.db, userId, checkoutId, input.items);
  if (!start) throw new AppError('unauthenticated', 'Please sign in first.');
  if (start.orderId && start.paymentIntentId) return { orderId: start.orderId, paymentIntentId: start.paymentIntentId, created: false };

  const lines = cartLines(input.items, start.products);
  // This balance only prices the order: the conditional debit decides whether it is there.
  const fresh = quote(lines, start.balanceCents ?? 0, true);
  if (fresh.amountDueCents > 0) {
    // Not enough credit any more, or it never was: this is a card checkout.
    throw new AppError('failed-precondition', sameQuote(fresh, input.quote) ? CHECKOUT_MESSAGES.insufficientWallet : CHECKOUT_MESSAGES.quoteChanged);
  }
  if (!sameQuote(fresh, input.quote)) throw new AppError('failed-precondition', CHECKOUT_MESSAGES.quoteChanged);
  const buyer = { email: start.email, name: start.name };
  return runTransaction(
    deps.db,
    async (tx) => {
      const paymentIntentId = newPaymentIntentId('wallet');
      const order = await insertOrder(tx, {
        userId,
        checkoutId,
        paymentIntentId,
        items: lines.map(({ counted: _counted, ...line }) => line),
        subtotalCents: fresh.subtotalCents,
        shippingCents: fresh.shippingCents,
        taxCents: fresh.taxCents,
        walletAppliedCents: fresh.walletAppliedCents,
        chargedCents: 0,
        contact: { ...input.contact, phone: input.contact.phone ?? '' },
        shipping: input.shipping,
      });
      if (!order.created) {
        const first = (await findOrderForCheckout(tx, checkoutId))!;
        return { ...first, created: false };
      }
      await enqueueReceipt(tx, deps.jobs, deps.publicUrl, buyer, order.id, lines, { ...fresh, chargedCents: 0 });
      await rememberAddress(tx, userId, input.shipping);
      // The conditional debit comes last: it locks the wallet row until the commit, and one
      // buyer's concurrent orders queue on that lock, so it is held as briefly as possible.
      await debit(tx, userId, fresh.walletAppliedCents, order.id);
      // Stock last of all (decision 027): the variant row is the hottest row of a drop, locked
      // from this update to the commit. Not enough left: nothing of this order stays.
      const demand = demandOf(lines);
      if (demand.length > 0) {
        const short = await takeStock(tx, demand, false);
        if (short.length > 0) throw ranOut(lines, short);
      }
      return { orderId: order.id, paymentIntentId, created: true };
    },
    { isolationLevel: 'read committed' },
  );
}

async function findOrderForCheckout(db: Db | Tx, checkoutId: string) {
  const [row] = await db.select({ orderId: orders.id, paymentIntentId: orders.paymentIntentId }).from(orders).where(eq(orders.checkoutId, checkoutId));
  return row;
}

/**
 * Card (+ wallet) checkout: a pending checkout and a hold on the wallet part, then a
 * hosted payment page for the rest. The order is made only by a verified payment event.
 * One atomic upsert decides which call creates a checkout id (decision 019): a repeated or
 * concurrent call with the same id waits for it and gets the same payment page.
 */
export async function createPaymentLink(
  deps: CheckoutDeps,
  userId: string,
  input: { items: CartItems; useWallet: boolean; contact: Contact; shipping: Shipping; redirectUrl?: string; checkoutId?: string },
): Promise<{ url: string; checkoutId: string }> {
  const lines = await priceCart(deps.db, input.items);
  const checkoutId = `${userId.slice(0, 8)}_${input.checkoutId ?? randomBytes(12).toString('base64url')}`;
  const returnUrl = safeReturnPath(input.redirectUrl);
  const expiresAt = new Date(Date.now() + CHECKOUT_TTL_MS);
  // A new checkout of the same cart: the one left behind gives its held credit back first.
  await cancelSameCartCheckouts(deps, userId, checkoutId, lines);

  const start = await runTransaction(
    deps.db,
    async (tx) => {
      const { balanceCents } = await getBalance(tx, userId);
      const fresh = quote(lines, balanceCents, input.useWallet);
      // ON CONFLICT DO UPDATE waits for a concurrent insert of this id to commit, then
      // returns that row: the caller learns in one statement whether it created it.
      const [row] = await tx
        .insert(checkouts)
        .values({
          id: checkoutId,
          userId,
          provider: deps.provider.name,
          items: lines.map(({ counted, ...line }): CheckoutLine => (counted ? { ...line, stockHeld: true } : line)),
          contact: { ...input.contact, phone: input.contact.phone ?? '' },
          shipping: input.shipping,
          subtotalCents: fresh.subtotalCents,
          shippingCents: fresh.shippingCents,
          taxCents: fresh.taxCents,
          walletHeldCents: fresh.walletAppliedCents,
          amountDueCents: fresh.amountDueCents,
          chargeCents: fresh.chargeCents,
          returnUrl,
          expiresAt,
        })
        .onConflictDoUpdate({ target: checkouts.id, set: { id: sql`${checkouts.id}` } })
        .returning({ userId: checkouts.userId, created: sql<boolean>`(xmax = 0)` });
      if (!row!.created) return { created: false as const, ownerId: row!.userId };
      if (fresh.amountDueCents === 0) {
        throw new AppError('failed-precondition', 'Your wallet covers this order: place it with your wallet instead.');
      }
      await rememberAddress(tx, userId, input.shipping);
      await hold(tx, userId, fresh.walletAppliedCents, checkoutId);
      // The stock is set aside with the wallet part, until the payment event or the expiry.
      const demand = demandOf(lines);
      if (demand.length > 0) {
        const short = await takeStock(tx, demand, true);
        if (short.length > 0) throw ranOut(lines, short);
      }
      return { created: true as const, priced: fresh };
    },
    { isolationLevel: 'read committed' },
  );
  if (!start.created) {
    if (start.ownerId !== userId) throw new AppError('permission-denied', 'This checkout belongs to someone else.');
    return { url: await existingPaymentUrl(deps, checkoutId), checkoutId };
  }
  const priced = start.priced;

  try {
    const session = await deps.provider.createSession({
      checkoutId,
      chargeCents: priced.chargeCents,
      walletAppliedCents: priced.walletAppliedCents,
      lines,
      shippingCents: priced.shippingCents,
      taxCents: priced.taxCents,
      cardFeeCents: priced.cardFeeCents,
      customerEmail: input.contact.email,
      expiresAt,
    });
    await deps.db.update(checkouts).set({ providerSessionId: session.sessionId, paymentUrl: session.url }).where(eq(checkouts.id, checkoutId));
    return { url: session.url, checkoutId };
  } catch (error) {
    // Nothing may stay held for a payment page that was never made.
    await closeCheckout(deps.db, checkoutId, 'failed');
    throw error;
  }
}

/** How long a repeated call waits for the first one to get its payment page. */
const PAYMENT_PAGE_WAIT_MS = 20_000;

/** The payment page of a checkout made by an earlier or concurrent call with its id. */
async function existingPaymentUrl(deps: CheckoutDeps, checkoutId: string): Promise<string> {
  const until = Date.now() + PAYMENT_PAGE_WAIT_MS;
  for (;;) {
    const [checkout] = await deps.db.select().from(checkouts).where(eq(checkouts.id, checkoutId));
    if (checkout?.status !== 'pending') throw new AppError('failed-precondition', 'This checkout is already closed. Please start again from your cart.');
    if (checkout.paymentUrl) return checkout.paymentUrl;
    // Made before payment pages were kept (decision 019).
    if (checkout.providerSessionId) return sessionUrl(deps, checkout);
    if (Date.now() > until) throw new AppError('unavailable', 'Your checkout is still starting. Please try again in a moment.');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export type Checkout = typeof checkouts.$inferSelect;

/** One checkout by its id (ids are at most 100 characters). */
export async function findCheckout(db: Db, checkoutId: string): Promise<Checkout | undefined> {
  const [checkout] = await db
    .select()
    .from(checkouts)
    .where(eq(checkouts.id, checkoutId.slice(0, 100)));
  return checkout;
}

function sessionUrl(deps: CheckoutDeps, checkout: Checkout): string {
  return deps.provider.name === 'local' ? `/pay/${encodeURIComponent(checkout.id)}` : `${deps.publicUrl}/checkout`;
}

/** Only our own paths: never an open redirect. */
export function safeReturnPath(url: string | undefined): string {
  // Also only plain URL characters: the path is written into the payment provider's return URL.
  if (isSameSitePath(url) && /^[A-Za-z0-9\-._~/?=&%]*$/.test(url)) return url.split('?')[0]!;
  return '/order-confirmation';
}

/** Ends a pending checkout without an order and gives its held credit back. */
export async function closeCheckout(db: Db, checkoutId: string, status: 'failed' | 'expired'): Promise<boolean> {
  return runTransaction(db, async (tx) => {
    const [checkout] = await tx.select().from(checkouts).where(eq(checkouts.id, checkoutId)).for('update');
    if (!checkout || checkout.status !== 'pending') return false;
    await tx.update(checkouts).set({ status, settledAt: new Date() }).where(eq(checkouts.id, checkoutId));
    await release(tx, checkout.userId, checkout.walletHeldCents, checkoutId);
    await releaseHeldStock(tx, checkout.items);
    return true;
  });
}

type Cancelled = { id: string; providerSessionId: string | null };

/**
 * Cancels the pending checkouts `where` names and releases their holds, in the caller's
 * transaction. One conditional update decides: a payment being applied holds the row's
 * lock until it commits, after which the update finds the checkout paid and changes
 * nothing; a payment applied after the cancel finds it cancelled (applyPaymentEvent).
 */
async function cancelPending(tx: Tx, where: SQL | undefined): Promise<Cancelled[]> {
  const rows = await tx
    .update(checkouts)
    .set({ status: 'cancelled', settledAt: new Date() })
    .where(and(where, eq(checkouts.status, 'pending')))
    .returning({ id: checkouts.id, userId: checkouts.userId, walletHeldCents: checkouts.walletHeldCents, providerSessionId: checkouts.providerSessionId, items: checkouts.items });
  for (const row of rows) {
    await release(tx, row.userId, row.walletHeldCents, row.id);
    await releaseHeldStock(tx, row.items);
  }
  return rows;
}

/**
 * A checkout left pending (this runs once per checkout: only the one transition out of
 * pending calls it): the stock it set aside can be bought again.
 */
async function releaseHeldStock(tx: Tx, items: CheckoutLine[]) {
  const demand = heldDemand(items);
  if (demand.length === 0) return;
  await releaseStock(tx, demand);
  await publishLive(tx, { topic: 'products' });
}

function heldDemand(items: CheckoutLine[]): StockDemand {
  return demandOf(items.map((item) => ({ ...item, counted: item.stockHeld === true })));
}

/** After the cancel committed: the provider's page can no longer be paid (a payment that got there first comes as a late payment). */
async function closeProviderSessions(deps: CheckoutDeps, cancelled: Cancelled[]) {
  for (const { id, providerSessionId } of cancelled) {
    if (!providerSessionId) continue;
    await deps.provider.expireSession(providerSessionId).catch((error: unknown) => {
      console.warn(`Could not close the payment session of cancelled checkout ${id}:`, error);
    });
  }
}

/**
 * The buyer left the payment page ("Back to checkout", or an explicit cancel): the checkout
 * ends and its held wallet credit is available again at once, exactly once. False when the
 * checkout is not theirs or no longer pending (paid, failed, expired, cancelled already).
 */
export async function cancelCheckout(deps: CheckoutDeps, userId: string, checkoutId: string): Promise<boolean> {
  const cancelled = await runTransaction(deps.db, (tx) => cancelPending(tx, and(eq(checkouts.id, checkoutId), eq(checkouts.userId, userId))), {
    isolationLevel: 'read committed',
  });
  await closeProviderSessions(deps, cancelled);
  return cancelled.length > 0;
}

const cartKey = (lines: { id: string; variantId?: string; qty: number }[]) =>
  JSON.stringify(lines.map(({ id, variantId, qty }) => [variantId ?? id, qty]).sort(([a], [b]) => String(a).localeCompare(String(b))));

/** Cancels the buyer's other pending checkouts of exactly these lines (a new checkout of the same cart). */
async function cancelSameCartCheckouts(deps: CheckoutDeps, userId: string, checkoutId: string, lines: OrderLine[]) {
  const pending = await deps.db
    .select({ id: checkouts.id, items: checkouts.items })
    .from(checkouts)
    .where(and(eq(checkouts.userId, userId), eq(checkouts.status, 'pending'), ne(checkouts.id, checkoutId)));
  const same = pending.filter((checkout) => cartKey(checkout.items) === cartKey(lines)).map((checkout) => checkout.id);
  if (same.length === 0) return;
  const cancelled = await runTransaction(deps.db, (tx) => cancelPending(tx, and(eq(checkouts.userId, userId), inArray(checkouts.id, same))), {
    isolationLevel: 'read committed',
  });
  await closeProviderSessions(deps, cancelled);
}

/**
 * Applies a verified payment event exactly once: the event id is recorded in the same
 * transaction that captures the hold and writes the order (or releases the hold).
 */
export async function applyPaymentEvent(deps: CheckoutDeps, event: PaymentEvent): Promise<'applied' | 'duplicate' | 'ignored'> {
  if (event.type === 'ignored' || !event.checkoutId) return 'ignored';
  return runTransaction(deps.db, async (tx) => {
    if (!(await recordProviderEventOnce(tx, { provider: deps.provider.name, eventId: event.eventId, type: event.type }))) return 'duplicate';
    const [checkout] = await tx.select().from(checkouts).where(eq(checkouts.id, event.checkoutId!)).for('update');
    if (!checkout) return 'ignored';
    if (event.sessionId && checkout.providerSessionId && event.sessionId !== checkout.providerSessionId) return 'ignored';

    if (event.type === 'succeeded') {
      // Paid, or refunded already (a late payment whose stock was gone): once only.
      if (checkout.status === 'paid' || checkout.status === 'refunded') return 'duplicate';
      // The buyer cancelled before paying on our own page: that payment is refused (nothing
      // was charged). A provider's payment is real money: it goes the late-payment way below.
      if (checkout.status === 'cancelled' && deps.provider.name === 'local') return 'ignored';
      if (checkout.status !== 'pending') {
        // Paid after its hold was released (a delayed payment method): honour the payment if
        // its stock is still there, taken again in a savepoint (decision 027); else refund it.
        const demand = heldDemand(checkout.items);
        if (demand.length > 0 && !(await retakeStock(tx, demand))) {
          await refundLatePayment(deps, tx, checkout, event);
          return 'applied';
        }
        // And the wallet part again if it is still there (in a savepoint).
        await tx
          .transaction((inner) => debit(inner, checkout.userId, checkout.walletHeldCents, `late:${checkout.id}`))
          .catch((error: unknown) => {
            // A conflict is not "the credit is gone": the whole event runs again.
            if (isRetryableTransactionError(error)) throw error;
            console.warn(`Late payment of checkout ${checkout.id}: its wallet part (${checkout.walletHeldCents} cents) could not be taken again:`, error);
          });
      } else {
        await capture(tx, checkout.userId, checkout.walletHeldCents, checkout.id);
        const demand = heldDemand(checkout.items);
        if (demand.length > 0) await captureStock(tx, demand);
      }
      await tx.update(checkouts).set({ status: 'paid', settledAt: new Date() }).where(eq(checkouts.id, checkout.id));
      const paymentIntentId = event.paymentIntentId ?? `pi_${checkout.id}`;
      const order = await insertOrder(tx, {
        userId: checkout.userId,
        checkoutId: checkout.id,
        paymentIntentId,
        items: checkout.items,
        subtotalCents: checkout.subtotalCents,
        shippingCents: checkout.shippingCents,
        taxCents: checkout.taxCents,
        walletAppliedCents: checkout.walletHeldCents,
        chargedCents: checkout.chargeCents,
        contact: checkout.contact,
        shipping: checkout.shipping,
      });
      const buyer = order.created ? await buyerOf(tx, checkout.userId) : undefined;
      if (buyer) {
        await enqueueReceipt(tx, deps.jobs, deps.publicUrl, buyer, order.id, checkout.items, {
          subtotalCents: checkout.subtotalCents,
          shippingCents: checkout.shippingCents,
          taxCents: checkout.taxCents,
          walletAppliedCents: checkout.walletHeldCents,
          chargedCents: checkout.chargeCents,
        });
      }
      return 'applied';
    }
    if (checkout.status !== 'pending') return 'duplicate';
    await tx
      .update(checkouts)
      .set({ status: event.type as 'failed' | 'expired', settledAt: new Date() })
      .where(eq(checkouts.id, checkout.id));
    await release(tx, checkout.userId, checkout.walletHeldCents, checkout.id);
    await releaseHeldStock(tx, checkout.items);
    return 'applied';
  });
}

class StockGone extends Error {}

/** Takes the stock of a late payment again, all or nothing (a savepoint): false when it is gone. */
async function retakeStock(tx: Tx, demand: StockDemand): Promise<boolean> {
  try {
    await tx.transaction(async (inner) => {
      if ((await takeStock(inner, demand, false)).length > 0) throw new StockGone();
    });
    return true;
  } catch (error) {
    if (error instanceof StockGone) return false;
    throw error;
  }
}

/**
 * A late card payment whose stock is gone (issue 15): no order; the wallet part stays
 * with the buyer (its hold was released when the checkout ended); the card payment is
 * refunded through the provider by a job (its row here makes that once per checkout,
 * in the same transaction that records the event), and the buyer is told by email.
 */
async function refundLatePayment(deps: CheckoutDeps, tx: Tx, checkout: typeof checkouts.$inferSelect, event: PaymentEvent) {
  await tx.update(checkouts).set({ status: 'refunded', settledAt: new Date() }).where(eq(checkouts.id, checkout.id));
  const amountCents = event.amountCents ?? checkout.chargeCents;
  const recorded = await tx
    .insert(paymentRefunds)
    .values({
      checkoutId: checkout.id,
      provider: deps.provider.name,
      paymentReference: event.paymentIntentId ?? `pi_${checkout.id}`,
      amountCents,
      reason: 'late payment: sold out',
    })
    .onConflictDoNothing()
    .returning({ checkoutId: paymentRefunds.checkoutId });
  if (recorded.length === 0) return;
  await deps.jobs.sendInTransaction(tx, 'refund-payment', { checkoutId: checkout.id });
  const buyer = await buyerOf(tx, checkout.userId);
  if (buyer) {
    await deps.jobs.sendInTransaction(
      tx,
      'send-email',
      lateRefundMail(buyer.email, buyer.name, { items: checkout.items, chargedCents: amountCents, walletCents: checkout.walletHeldCents }, `${deps.publicUrl}/shop`),
    );
  }
}

/**
 * The refund job: the provider's one refund call (the order desk's too, decision 028), asked
 * once per checkout (its idempotency key), then the refund's id recorded. A refusal is
 * recorded for the order desk to see; any other failure throws so the job is retried with
 * the same key, which cannot refund twice.
 */
export async function sendRefund(deps: CheckoutDeps, checkoutId: string): Promise<void> {
  const [row] = await deps.db.select().from(paymentRefunds).where(eq(paymentRefunds.checkoutId, checkoutId));
  if (!row || row.providerRefundId || row.failure) return;
  try {
    const { refundId, status } = await deps.provider.refund({
      paymentIntentId: row.paymentReference,
      amountCents: row.amountCents,
      idempotencyKey: `refund-${checkoutId}`,
      orderId: checkoutId,
    });
    const done = status === 'succeeded' ? { providerRefundId: refundId, refundedAt: new Date() } : { providerRefundId: refundId, failure: 'The card refund failed.' };
    await deps.db.update(paymentRefunds).set(done).where(eq(paymentRefunds.checkoutId, checkoutId));
  } catch (error) {
    if (!(error instanceof RefundRefusedError)) throw error;
    console.warn(`The card refund of late payment ${checkoutId} was refused:`, error.message);
    await deps.db
      .update(paymentRefunds)
      .set({ failure: error.message.slice(0, 500) })
      .where(eq(paymentRefunds.checkoutId, checkoutId));
  }
}

/**
 * Settles checkouts whose events never came: asks the provider, applies what it says,
 * and expires (releasing the hold) what outlived its payment session.
 */
export async function reconcileCheckouts(deps: CheckoutDeps, now = new Date()): Promise<{ settled: number; expired: number }> {
  const stale = await deps.db
    .select()
    .from(checkouts)
    .where(and(eq(checkouts.status, 'pending'), lt(checkouts.createdAt, new Date(now.getTime() - 5 * 60 * 1000))))
    .limit(200);
  let settled = 0;
  let expired = 0;
  for (const checkout of stale) {
    const state = checkout.providerSessionId
      ? await deps.provider.sessionState(checkout.providerSessionId).catch((error: unknown) => {
          // Asked again on the next run.
          console.warn(`Could not ask the payment provider about checkout ${checkout.id}:`, error);
          return null;
        })
      : null;
    if (state?.state === 'paid') {
      const result = await applyPaymentEvent(deps, {
        eventId: `reconcile:${checkout.id}`,
        type: 'succeeded',
        checkoutId: checkout.id,
        sessionId: checkout.providerSessionId,
        paymentIntentId: state.paymentIntentId,
        amountCents: checkout.chargeCents,
      });
      if (result === 'applied') settled += 1;
    } else if (state?.state === 'expired' || state?.state === 'failed' || (deps.provider.name === 'local' && checkout.expiresAt < now)) {
      if (await closeCheckout(deps.db, checkout.id, 'expired')) expired += 1;
    }
  }
  return { settled, expired };
}
