import { formatUsd } from './catalog.ts';
import type { QuoteDiscount } from './pricing.ts';

/**
 * Discount codes (issue 27, decision 052): what a code is, when it applies to a cart, and the
 * sentences the shopper and the label read. Pure: the server judges a code with these rules,
 * reserves a use, and prices with pricing.ts's quote(); the shop shows the same sentences.
 */

export const DISCOUNT_KINDS = ['percent', 'fixed'] as const;
export const DISCOUNT_SCOPES = ['order', 'category', 'products'] as const;
export type DiscountKind = (typeof DISCOUNT_KINDS)[number];
export type DiscountScope = (typeof DISCOUNT_SCOPES)[number];

/** A code as people type it: 3 to 32 letters, digits, - or _; compared without case. */
export const DISCOUNT_CODE_PATTERN = /^[A-Za-z0-9_-]{3,32}$/;

export const DISCOUNT_MESSAGES = {
  /**
   * The shopper's one answer for a code that cannot be used for this order, whatever the
   * reason (issue 40 item 2): unknown and existing codes answer alike, so codes cannot be
   * guessed. The reasons below are the label's (rules, console).
   */
  notUsable: 'This code cannot be used for this order.',
  unknown: 'This code is not valid.',
  notStarted: 'This code is not valid yet.',
  ended: 'This code has expired.',
  usedUp: 'This code has been used up.',
  usedByYou: 'You have already used this code.',
  nothingApplies: 'This code does not apply to anything in your cart.',
  codeFormat: 'A code is 3 to 32 letters, digits, - or _.',
  codeTaken: 'A code with this name already exists.',
  percentRange: 'A percentage is a whole number from 1 to 100.',
  amountRange: 'A fixed amount is at least $0.01.',
  categoryNeeded: 'Choose the category the code applies to.',
  productsNeeded: 'Choose at least one product the code applies to.',
  dates: 'The end must come after the start.',
  limitRange: 'A use limit is a whole number of at least 1.',
  changed: 'This code changed since you reviewed this order. Please review the new total and try again.',
  notRefunded: 'Only a fully refunded order can give its code use back.',
  noUse: 'This order used no discount code, or its use was given back already.',
} as const;

/** "Needs a subtotal of at least $25.00." */
export function minimumSubtotalMessage(minSubtotalCents: number): string {
  return `This code needs a subtotal of at least ${formatUsd(minSubtotalCents)}.`;
}

/** A code as its rules read it. */
export interface DiscountRule {
  code: string;
  kind: DiscountKind;
  /** Percent (1-100) or cents. */
  value: number;
  scope: DiscountScope;
  categoryId: string | null;
  productIds: string[];
  minSubtotalCents: number;
  startsAt: Date | null;
  endsAt: Date | null;
  useLimit: number | null;
  uses: number;
  oncePerAccount: boolean;
  active: boolean;
}

/** A cart line as a code judges it: its product, that product's category, its goods. */
export interface DiscountLine {
  productId: string;
  categoryId: string | null;
  unitCents: number;
  qty: number;
  /** Gift cards and the like: never discounted. */
  excluded?: boolean;
}

/** The code's form as a shopper types it: trimmed, upper case. */
export function normalizeCode(code: string): string {
  return code.trim().toUpperCase();
}

/** Which lines a code applies to, in order. */
export function linesCodeAppliesTo(rule: Pick<DiscountRule, 'scope' | 'categoryId' | 'productIds'>, lines: readonly DiscountLine[]): boolean[] {
  return lines.map((line) => {
    if (line.excluded) return false;
    if (rule.scope === 'category') return rule.categoryId !== null && line.categoryId === rule.categoryId;
    if (rule.scope === 'products') return rule.productIds.includes(line.productId);
    return true;
  });
}

/**
 * The code applied to this cart, or the sentence saying why not. `usedByBuyer`: the buyer has
 * a use of it already (held or made). Uses left are judged here for the message only: the
 * reservation's conditional update decides.
 */
export function applyDiscount(rule: DiscountRule, lines: readonly DiscountLine[], context: { now: Date; usedByBuyer: boolean }): { discount: QuoteDiscount } | { refused: string } {
  if (!rule.active) return { refused: DISCOUNT_MESSAGES.unknown };
  if (rule.startsAt && context.now < rule.startsAt) return { refused: DISCOUNT_MESSAGES.notStarted };
  if (rule.endsAt && context.now >= rule.endsAt) return { refused: DISCOUNT_MESSAGES.ended };
  if (rule.useLimit !== null && rule.uses >= rule.useLimit) return { refused: DISCOUNT_MESSAGES.usedUp };
  if (rule.oncePerAccount && context.usedByBuyer) return { refused: DISCOUNT_MESSAGES.usedByYou };
  const subtotal = lines.reduce((sum, line) => (line.excluded ? sum : sum + line.unitCents * line.qty), 0);
  if (subtotal < rule.minSubtotalCents) return { refused: minimumSubtotalMessage(rule.minSubtotalCents) };
  const appliesTo = linesCodeAppliesTo(rule, lines);
  if (!appliesTo.some(Boolean)) return { refused: DISCOUNT_MESSAGES.nothingApplies };
  return { discount: { kind: rule.kind, value: rule.value, appliesTo } };
}

/** "20% off", "$5.00 off", with what it applies to. */
export function describeDiscount(rule: Pick<DiscountRule, 'kind' | 'value'>): string {
  return rule.kind === 'percent' ? `${rule.value}% off` : `${formatUsd(rule.value)} off`;
}
