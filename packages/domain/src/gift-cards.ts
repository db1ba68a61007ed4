import { formatUsd } from './money.ts';

/**
 * Gift cards (issue 27, decision 053): the rules and sentences shared by the server and the
 * shop. A gift card is a product whose variants are the amounts the label chose; each unit
 * bought becomes one card with a single-use code mailed to the recipient, redeemed on /wallet
 * as wallet credit. No zod here (the shop's cart and checkout load this).
 */
export const GIFT_CARD_MESSAGES = {
  resendOnlyLive: 'Only a sold gift card that is not redeemed or voided can be sent again.',
  noWallet: 'Gift cards cannot be paid with wallet credit. Turn off "Use my wallet" to buy one.',
  noCode: 'Discount codes cannot be used on an order with a gift card.',
  recipientNeeded: 'Please enter the email address the gift card goes to.',
  recipientInvalid: 'Please enter a valid email address for the gift card recipient.',
  messageTooLong: 'The gift card message can be at most 500 characters.',
  messageInvalid: 'The gift card message cannot contain control characters.',
  notForOrder: 'A recipient and message are only for an order with a gift card.',
  codeInvalid: 'This gift card code is not valid.',
  codeUsed: 'This gift card has already been redeemed.',
  codeVoid: 'This gift card was refunded and can no longer be redeemed.',
  redeemedNoCash: 'A gift card that has been redeemed cannot be refunded as cash: its credit is already in the recipient\u2019s wallet.',
  refundByLine: 'Refund the gift card lines of this order (a full refund or by line), so their codes can be voided.',
  amountsNeeded: 'Choose at least one gift card amount.',
} as const;

export const GIFT_CARD_MESSAGE_MAX = 500;
/** Letters without look-alikes (no I, L, O, 0, 1): read from an email and typed by hand. */
export const GIFT_CARD_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
/** 16 characters of 31: about 79 bits, far past guessing at any rate limit. */
export const GIFT_CARD_CODE_LENGTH = 16;
/** The option whose values are a gift card product's amounts. */
export const GIFT_CARD_OPTION = 'Amount';
export const MAX_GIFT_CARD_AMOUNTS = 10;
/** $5.00 to $1,000.00 a card. */
export const MIN_GIFT_CARD_CENTS = 500;
export const MAX_GIFT_CARD_CENTS = 100_000;

/** A code as typed or pasted: upper case, spaces and dashes dropped; null when it cannot be a code. */
export function normalizeGiftCardCode(typed: string): string | null {
  const code = typed.toUpperCase().replace(/[\s-]/g, '');
  if (code.length !== GIFT_CARD_CODE_LENGTH) return null;
  for (const char of code) if (!GIFT_CARD_ALPHABET.includes(char)) return null;
  return code;
}

/** XXXX-XXXX-XXXX-XXXX, as the email shows it. */
export function formatGiftCardCode(code: string): string {
  return code.match(/.{1,4}/g)!.join('-');
}

const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
// Control characters other than line breaks (a message may have lines).
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0009\u000b\u000c\u000e-\u001f\u007f]/;

/** The first problem of what the buyer typed for the recipient, or null. */
export function giftRecipientProblem(gift: { recipientEmail: string; message: string }): string | null {
  const email = gift.recipientEmail.trim();
  if (email === '') return GIFT_CARD_MESSAGES.recipientNeeded;
  if (email.length > 254 || !EMAIL_PATTERN.test(email)) return GIFT_CARD_MESSAGES.recipientInvalid;
  if (gift.message.length > GIFT_CARD_MESSAGE_MAX) return GIFT_CARD_MESSAGES.messageTooLong;
  if (CONTROL.test(gift.message)) return GIFT_CARD_MESSAGES.messageInvalid;
  return null;
}

/** A gift card amount's option value: "$25.00" (no grouping: "$1000.00"). */
export function giftCardAmountLabel(cents: number): string {
  return formatUsd(cents, { grouping: false });
}

/**
 * The liability the sales overview shows: cards sold (paid) and not yet redeemed nor voided.
 * `sold` counts every card paid in the period, `redeemed` and `voided` what of all cards was
 * redeemed or refunded in it; `outstanding` is the balance at the period's end.
 */
export interface GiftCardLiability {
  soldCents: number;
  soldCount: number;
  redeemedCents: number;
  voidedCents: number;
  outstandingCents: number;
}

/** The wallet history's note on a redeemed gift card's credit: kept with the wallet's texts (the /wallet bundle loads them). */
export { GIFT_CARD_HISTORY_NOTE } from './wallet.ts';

/** A card's state as the console names it (issue 40 item 3). */
export const GIFT_CARD_STATE_LABELS = { pending: 'Pending payment', active: 'Sold', redeemed: 'Redeemed', void: 'Voided' } as const;
