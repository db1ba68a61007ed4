import { createHash, createHmac, randomBytes } from 'node:crypto';
import { and, eq, inArray, isNull, sql } from 'drizzle-orm';
import { formatUsd } from '@storefront/domain/catalog.ts';
import {
  formatGiftCardCode,
  GIFT_CARD_ALPHABET,
  GIFT_CARD_HISTORY_NOTE,
  GIFT_CARD_CODE_LENGTH,
  GIFT_CARD_MESSAGES,
  normalizeGiftCardCode,
  type GiftCardLiability,
} from '@storefront/domain/gift-cards.ts';
import type { GiftCardState, GiftInput } from '@storefront/domain/gift-card-schemas.ts';
import type { giftCardRowSchema } from '@storefront/domain/gift-card-schemas.ts';
import type { z } from 'zod';
import { contactOf, emailsOf } from '../accounts/accounts.service.ts';
import type { Db } from '../db/client.ts';
import { giftCards } from '../db/schema/index.ts';
import { runTransaction, type Tx } from '../db/transaction.ts';
import { AppError } from '../errors.ts';
import type { JobQueue } from '../jobs/queue.ts';
import type { Mail } from '../mail/mailer.ts';
import { credit, getBalance } from '../wallet/wallet.service.ts';
import { giftCardMail } from './giftcards.mail.ts';

/**
 * Gift cards (issue 27, decision 053). A card's code is derived from the server's secret and
 * the card's id (HMAC), so it is never stored: the database keeps its SHA-256 only, the mail
 * job carries only the card's id, and a retried mail sends the same code. Redeeming is one
 * conditional UPDATE (`... WHERE status = 'active'`): of any number of concurrent redemptions
 * exactly one gets the row, and credits the wallet in the same transaction.
 */
export const GIFT_CARD_MAIL_QUEUE = 'send-gift-card';

export type GiftCardRow = z.infer<typeof giftCardRowSchema>;

export function hashCode(code: string): string {
  return createHash('sha256').update(code).digest('hex');
}

/** The card's code under one secret: 16 letters of the alphabet from the HMAC's bytes. */
export function deriveCode(secret: string, giftCardId: string): string {
  const digest = createHmac('sha256', secret).update(`gift-card:${giftCardId}`).digest();
  let code = '';
  // 32 bytes for 16 characters: each byte mod 31 is close enough to even (256 = 8*31 + 8).
  for (let index = 0; index < GIFT_CARD_CODE_LENGTH; index += 1) code += GIFT_CARD_ALPHABET[digest[index]! % GIFT_CARD_ALPHABET.length];
  return code;
}

export interface GiftCardLine {
  productId: string;
  variantId: string;
  unitCents: number;
  qty: number;
}

/** Step "reserve gift cards" of a card checkout: one pending card per unit, for its recipient. */
export async function reserveGiftCards(tx: Tx, checkout: { checkoutId: string; buyerId: string; lines: GiftCardLine[]; gift: GiftInput }): Promise<void> {
  const rows = checkout.lines.flatMap((line) =>
    Array.from({ length: line.qty }, () => ({
      id: `gc_${randomBytes(12).toString('base64url')}`,
      checkoutId: checkout.checkoutId,
      buyerId: checkout.buyerId,
      productId: line.productId,
      variantId: line.variantId,
      amountCents: line.unitCents,
      recipientEmail: checkout.gift.recipientEmail,
      message: checkout.gift.message,
    })),
  );
  if (rows.length > 0) await tx.insert(giftCards).values(rows);
}

/**
 * The undo of "reserve gift cards": the pending cards of checkouts that ended without an order
 * (cancelled, replaced, expired, failed, refunded) are removed, in the transaction that ends
 * them (issue 40 item 3: before, every unpaid checkout left its cards for ever).
 */
export async function dropPendingGiftCards(tx: Tx, checkoutIds: string[]): Promise<number> {
  if (checkoutIds.length === 0) return 0;
  const dropped = await tx
    .delete(giftCards)
    .where(and(inArray(giftCards.checkoutId, checkoutIds), eq(giftCards.status, 'pending')))
    .returning({ id: giftCards.id });
  return dropped.length;
}

/** Whether a checkout still has its pending cards (a late payment needs them to make its order). */
export async function hasPendingGiftCards(tx: Tx, checkoutId: string): Promise<boolean> {
  const [row] = await tx
    .select({ id: giftCards.id })
    .from(giftCards)
    .where(and(eq(giftCards.checkoutId, checkoutId), eq(giftCards.status, 'pending')))
    .limit(1);
  return row !== undefined;
}

/** Step "activate gift cards", in the paid order's transaction: its cards become live and their emails are queued. */
export async function activateGiftCards(tx: Tx, jobs: JobQueue, checkoutId: string, orderId: string): Promise<number> {
  const activated = await tx
    .update(giftCards)
    .set({ status: 'active', orderId, activatedAt: new Date() })
    .where(and(eq(giftCards.checkoutId, checkoutId), eq(giftCards.status, 'pending')))
    .returning({ id: giftCards.id });
  for (const card of activated) await jobs.sendInTransaction(tx, GIFT_CARD_MAIL_QUEUE, { giftCardId: card.id });
  return activated.length;
}

export interface GiftMailDeps {
  db: Db;
  /** AUTH_SECRET first, then AUTH_SECRET_PREVIOUS (a card made before a rotation keeps its code). */
  secrets: string[];
  send: (mail: Mail) => Promise<void>;
  publicUrl: string;
}

/** The mail job: the card's code set (hashed) once, then sent to its recipient. A void card is not sent. */
export async function sendGiftCardMail(deps: GiftMailDeps, giftCardId: string): Promise<void> {
  const [card] = await deps.db.select().from(giftCards).where(eq(giftCards.id, giftCardId));
  if (!card || card.status !== 'active' || card.mailedAt) return;
  let code = deriveCode(deps.secrets[0]!, card.id);
  if (card.codeHash === null) {
    await deps.db
      .update(giftCards)
      .set({ codeHash: hashCode(code) })
      .where(and(eq(giftCards.id, card.id), isNull(giftCards.codeHash)));
  } else {
    const matching = deps.secrets.map((secret) => deriveCode(secret, card.id)).find((candidate) => hashCode(candidate) === card.codeHash);
    // Its secret is gone (rotated out): the code cannot be sent again; someone must look.
    if (!matching) throw new Error(`Gift card ${card.id}: no secret gives its code any more.`);
    code = matching;
  }
  const buyer = await contactOf(deps.db, card.buyerId);
  await deps.send(
    giftCardMail(card.recipientEmail, {
      fromName: buyer?.name ?? '',
      amount: formatUsd(card.amountCents),
      code: formatGiftCardCode(code),
      message: card.message,
      walletUrl: `${deps.publicUrl}/wallet`,
    }),
  );
  await deps.db.update(giftCards).set({ mailedAt: new Date() }).where(eq(giftCards.id, card.id));
}

/** The console's list (issue 40 item 3): newest first, at most 500, with the buyer's address. */
export async function listGiftCards(db: Db, status: GiftCardState | null | undefined): Promise<{ cards: GiftCardRow[]; more: boolean }> {
  const rows = await db.execute<{
    id: string;
    status: GiftCardState;
    amount_cents: string;
    recipient_email: string;
    buyer_id: string;
    order_id: string | null;
    created_at: Date;
    activated_at: Date | null;
    mailed_at: Date | null;
    redeemed_at: Date | null;
    voided_at: Date | null;
  }>(sql`
    SELECT g.id, g.status, g.amount_cents, g.recipient_email, g.buyer_id, g.order_id, g.created_at, g.activated_at, g.mailed_at, g.redeemed_at, g.voided_at
    FROM ${giftCards} g
    ${status ? sql`WHERE g.status = ${status}` : sql``}
    ORDER BY g.created_at DESC, g.id DESC LIMIT 501`);
  const iso = (value: Date | string | null) => (value === null ? null : new Date(value).toISOString());
  const shown = rows.rows.slice(0, 500);
  const buyers = await emailsOf(db, [...new Set(shown.map((row) => row.buyer_id))]);
  const cards = shown.map((row) => ({
    id: row.id,
    status: row.status,
    amountCents: Number(row.amount_cents),
    recipientEmail: row.recipient_email,
    buyerEmail: buyers.get(row.buyer_id) ?? null,
    orderId: row.order_id,
    createdAt: iso(row.created_at)!,
    activatedAt: iso(row.activated_at),
    mailedAt: iso(row.mailed_at),
    redeemedAt: iso(row.redeemed_at),
    voidedAt: iso(row.voided_at),
  }));
  return { cards, more: rows.rows.length > 500 };
}

/** The label sends a sold card's mail again (same code: it is derived, decision 053); refused for any other state. */
export async function resendGiftCard(tx: Tx, jobs: JobQueue, giftCardId: string): Promise<void> {
  const [card] = await tx
    .update(giftCards)
    .set({ mailedAt: null })
    .where(and(eq(giftCards.id, giftCardId), eq(giftCards.status, 'active')))
    .returning({ id: giftCards.id });
  if (!card) {
    const [exists] = await tx.select({ id: giftCards.id }).from(giftCards).where(eq(giftCards.id, giftCardId));
    if (!exists) throw new AppError('not-found', 'Gift card not found.');
    throw new AppError('failed-precondition', GIFT_CARD_MESSAGES.resendOnlyLive);
  }
  await jobs.sendInTransaction(tx, GIFT_CARD_MAIL_QUEUE, { giftCardId });
}

/** The recipient redeems a code: its amount is credited to their wallet, once, with a line in the history. */
export async function redeemGiftCard(db: Db, userId: string, typed: string): Promise<{ amountCents: number; balanceCents: number }> {
  const code = normalizeGiftCardCode(typed);
  if (!code) throw new AppError('invalid-argument', GIFT_CARD_MESSAGES.codeInvalid);
  const codeHash = hashCode(code);
  return runTransaction(
    db,
    async (tx) => {
      const [claimed] = await tx
        .update(giftCards)
        .set({ status: 'redeemed', redeemedBy: userId, redeemedAt: new Date() })
        .where(and(eq(giftCards.codeHash, codeHash), eq(giftCards.status, 'active')))
        .returning({ id: giftCards.id, amountCents: giftCards.amountCents });
      if (!claimed) {
        const [card] = await tx.select({ status: giftCards.status }).from(giftCards).where(eq(giftCards.codeHash, codeHash));
        if (!card) throw new AppError('not-found', GIFT_CARD_MESSAGES.codeInvalid);
        throw new AppError('failed-precondition', card.status === 'void' ? GIFT_CARD_MESSAGES.codeVoid : GIFT_CARD_MESSAGES.codeUsed);
      }
      await credit(tx, userId, claimed.amountCents, `gift-card:${claimed.id}`, 'grant', GIFT_CARD_HISTORY_NOTE);
      const { balanceCents } = await getBalance(tx, userId);
      return { amountCents: claimed.amountCents, balanceCents };
    },
    { isolationLevel: 'read committed' },
  );
}

/**
 * A refund of an order's gift card units (by variant, how many): that many unredeemed cards are
 * voided, in the refund's transaction. Fewer left unredeemed than asked: refused, nothing voided.
 */
export async function voidGiftCardsForRefund(tx: Tx, orderId: string, units: Map<string, number>): Promise<number> {
  let voided = 0;
  for (const [variantId, quantity] of units) {
    const cards = await tx
      .select({ id: giftCards.id, status: giftCards.status })
      .from(giftCards)
      .where(and(eq(giftCards.orderId, orderId), eq(giftCards.variantId, variantId)))
      .orderBy(giftCards.id)
      .for('update');
    if (cards.length === 0) continue;
    const live = cards.filter((card) => card.status === 'active');
    if (live.length < quantity) throw new AppError('failed-precondition', GIFT_CARD_MESSAGES.redeemedNoCash);
    const ids = live.slice(0, quantity).map((card) => card.id);
    await tx
      .update(giftCards)
      .set({ status: 'void', voidedAt: new Date() })
      .where(and(inArray(giftCards.id, ids), eq(giftCards.status, 'active')));
    voided += ids.length;
  }
  return voided;
}

/** The variants of an order's lines that are gift cards (no tax was charged on them). */
export async function giftCardVariantsOf(tx: Tx, orderId: string): Promise<Set<string>> {
  const rows = await tx.selectDistinct({ variantId: giftCards.variantId }).from(giftCards).where(eq(giftCards.orderId, orderId));
  return new Set(rows.map((row) => row.variantId));
}

/** The gift card lines of these orders, as `orderId variantId` keys (issue 39: an order view says a gift card goes by email). */
export async function giftCardLinesOf(db: Db | Tx, orderIds: string[]): Promise<Set<string>> {
  if (orderIds.length === 0) return new Set();
  const rows = await db.selectDistinct({ orderId: giftCards.orderId, variantId: giftCards.variantId }).from(giftCards).where(inArray(giftCards.orderId, orderIds));
  return new Set(rows.map((row) => `${row.orderId} ${row.variantId}`));
}

/** Whether an order has gift cards that are not void (a refund by amount cannot say which to void). */
export async function orderHasLiveGiftCards(tx: Tx, orderId: string): Promise<boolean> {
  const [row] = await tx
    .select({ id: giftCards.id })
    .from(giftCards)
    .where(and(eq(giftCards.orderId, orderId), inArray(giftCards.status, ['active', 'redeemed'])))
    .limit(1);
  return row !== undefined;
}

/**
 * The sales overview's liability (decision 053) between two instants: cards paid, redeemed and
 * voided in it, and what was sold and not yet redeemed nor voided at its end.
 */
export async function giftCardLiability(db: Db, start: ReturnType<typeof sql>, end: ReturnType<typeof sql>): Promise<GiftCardLiability> {
  const result = await db.execute<{ sold: string; sold_count: string; redeemed: string; voided: string; outstanding: string }>(sql`
    SELECT
      coalesce(sum(amount_cents) FILTER (WHERE activated_at >= ${start} AND activated_at < ${end}), 0)::text AS sold,
      count(*) FILTER (WHERE activated_at >= ${start} AND activated_at < ${end})::text AS sold_count,
      coalesce(sum(amount_cents) FILTER (WHERE redeemed_at >= ${start} AND redeemed_at < ${end}), 0)::text AS redeemed,
      coalesce(sum(amount_cents) FILTER (WHERE voided_at >= ${start} AND voided_at < ${end}), 0)::text AS voided,
      coalesce(sum(amount_cents) FILTER (WHERE activated_at < ${end}
        AND (redeemed_at IS NULL OR redeemed_at >= ${end}) AND (voided_at IS NULL OR voided_at >= ${end})), 0)::text AS outstanding
    FROM ${giftCards} WHERE activated_at IS NOT NULL`);
  const row = result.rows[0]!;
  return {
    soldCents: Number(row.sold),
    soldCount: Number(row.sold_count),
    redeemedCents: Number(row.redeemed),
    voidedCents: Number(row.voided),
    outstandingCents: Number(row.outstanding),
  };
}
