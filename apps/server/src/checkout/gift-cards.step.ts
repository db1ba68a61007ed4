import type { GiftInput } from '@storefront/domain/gift-card-schemas.ts';
import { GIFT_CARD_MESSAGES } from '@storefront/domain/gift-cards.ts';
import type { Tx } from '../db/transaction.ts';
import { AppError } from '../errors.ts';
import { reserveGiftCards } from '../giftcards/giftcards.service.ts';
import type { StockLine } from './cart.ts';

/**
 * The gift card lines of a card checkout and their recipient (decision 053): a gift card is
 * paid by card alone (no wallet credit, no code) and needs a recipient; a recipient without
 * a gift card is refused too. A wallet-only order (useWallet) is refused any gift card line.
 */
export function giftCardLinesOf(lines: StockLine[], input: { useWallet: boolean; discountCode?: string | undefined; gift?: GiftInput | undefined }) {
  const gifts = lines.filter((line) => line.giftCard);
  if (gifts.length === 0) {
    if (input.gift) throw new AppError('invalid-argument', GIFT_CARD_MESSAGES.notForOrder);
    return undefined;
  }
  if (input.useWallet) throw new AppError('failed-precondition', GIFT_CARD_MESSAGES.noWallet);
  if (input.discountCode?.trim()) throw new AppError('failed-precondition', GIFT_CARD_MESSAGES.noCode, { discountCode: GIFT_CARD_MESSAGES.noCode });
  if (!input.gift) throw new AppError('invalid-argument', GIFT_CARD_MESSAGES.recipientNeeded);
  return { gift: input.gift, lines: gifts.map((line) => ({ productId: line.id, variantId: line.variantId, unitCents: line.unitCents, qty: line.qty })) };
}

export type GiftCardLines = NonNullable<ReturnType<typeof giftCardLinesOf>>;

/** Step "reserve gift cards" (decision 053): one pending card per unit, made live by the payment. */
export async function reserveGifts(tx: Tx, checkoutId: string, buyerId: string, gifts: GiftCardLines | undefined): Promise<void> {
  if (gifts) await reserveGiftCards(tx, { checkoutId, buyerId, lines: gifts.lines, gift: gifts.gift });
}
