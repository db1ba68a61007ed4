import { applyDiscount, DISCOUNT_MESSAGES, type DiscountLine } from '@storefront/domain/discounts.ts';
import type { QuoteDiscount } from '@storefront/domain/pricing.ts';
import { categoriesOfProducts } from '../catalog/categories.service.ts';
import type { Db } from '../db/client.ts';
import { buyerUsedCode, buyerUses, findCode, takeUse } from '../discounts/discounts.service.ts';
import type { Tx } from '../db/transaction.ts';
import { AppError } from '../errors.ts';
import { lockBuyer } from './checkouts.service.ts';
import type { StockLine } from './cart.ts';

/** A code that applies to this cart: the pricing function's discount, and what the reservation needs. */
export interface AppliedCode {
  codeId: string;
  code: string;
  oncePerAccount: boolean;
  discount: QuoteDiscount;
}

/**
 * Step "judge code" (issue 27, decision 052): whether the code the buyer typed applies to this
 * cart now, by the domain's rules, read outside the transaction. The use itself is taken in
 * the order's (or checkout's) transaction by one conditional update, which has the last word.
 */
export async function judgeCode(db: Db, userId: string, typed: string, lines: StockLine[]): Promise<{ applied: AppliedCode } | { refused: string }> {
  const code = await findCode(db, typed);
  if (!code) return { refused: DISCOUNT_MESSAGES.notUsable };
  const categories = code.scope === 'category' ? await categoriesOfProducts(db, [...new Set(lines.map((line) => line.id))]) : new Map<string, string | null>();
  const discountLines: DiscountLine[] = lines.map((line) => ({ productId: line.id, categoryId: categories.get(line.id) ?? null, unitCents: line.unitCents, qty: line.qty }));
  // The buyer's own held use (their open card checkout, which a new one replaces) does not use the code up for them.
  const mine = code.oncePerAccount || code.useLimit !== null ? await buyerUses(db, code.id, userId) : { made: 0, held: 0 };
  const judged = applyDiscount({ ...code, uses: code.uses - mine.held }, discountLines, { now: new Date(), usedByBuyer: mine.made > 0 });
  // One answer whatever the reason (issue 40 item 2): the shopper cannot tell a code that exists.
  if ('refused' in judged) return { refused: DISCOUNT_MESSAGES.notUsable };
  return { applied: { codeId: code.id, code: code.code, oncePerAccount: code.oncePerAccount, discount: judged.discount } };
}

/** Judged, or refused with the code's sentence (an order or checkout with a code that does not apply is not made). */
export async function codeFor(db: Db, userId: string, typed: string | undefined, lines: StockLine[]): Promise<AppliedCode | undefined> {
  if (!typed?.trim()) return undefined;
  const judged = await judgeCode(db, userId, typed, lines);
  if ('refused' in judged) throw new AppError('failed-precondition', judged.refused, { discountCode: judged.refused });
  return judged.applied;
}

/** Once per account, under the buyer's lock: a use they made or hold (after any replaced checkout released its own). */
export async function checkOncePerAccount(tx: Tx, userId: string, code: AppliedCode, alreadyLocked: boolean): Promise<void> {
  if (!code.oncePerAccount) return;
  if (!alreadyLocked) await lockBuyer(tx, userId);
  if (await buyerUsedCode(tx, code.codeId, userId, 'live')) throw new AppError('failed-precondition', DISCOUNT_MESSAGES.notUsable, { discountCode: DISCOUNT_MESSAGES.notUsable });
}

/**
 * A checkout that replaces one holding a use of the same code keeps that hold's deadline (issue
 * 40 item 4): replacing an unpaid checkout again and again does not keep a one-use code from
 * everybody else for ever. The code's use comes free at the first checkout's deadline.
 */
export function keepCodeDeadline(replaced: readonly { discountCode?: string | null; expiresAt?: Date }[], code: string, expiresAt: Date): Date {
  let until = expiresAt;
  for (const ended of replaced) {
    if (ended.discountCode?.toLowerCase() === code.toLowerCase() && ended.expiresAt && ended.expiresAt < until) until = ended.expiresAt;
  }
  return until;
}

/** Step "take code use": one use, held with a card checkout or made with an order; none left refuses the whole order. */
export async function takeCodeUse(tx: Tx, use: { code: AppliedCode; userId: string; checkoutId: string; status: 'held' | 'used'; discountCents: number }): Promise<void> {
  const taken = await takeUse(tx, { code: use.code.code, userId: use.userId, checkoutId: use.checkoutId, status: use.status, discountCents: use.discountCents });
  if (!taken) throw new AppError('failed-precondition', DISCOUNT_MESSAGES.notUsable, { discountCode: DISCOUNT_MESSAGES.notUsable });
}
