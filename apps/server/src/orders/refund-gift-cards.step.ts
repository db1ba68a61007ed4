import { GIFT_CARD_MESSAGES } from '@storefront/domain/gift-cards.ts';
import type { Tx } from '../db/transaction.ts';
import { AppError } from '../errors.ts';
import { orderHasLiveGiftCards, voidGiftCardsForRefund } from '../giftcards/giftcards.service.ts';
import { itemsAtPositions } from './refunds.service.ts';

/**
 * Step "void gift cards" (decision 053): by line, that many of the line's unredeemed gift
 * cards are voided in the refund's transaction (none left unredeemed: refused, the money stays).
 * A refund by amount names no units, so it is refused while the order has cards not voided.
 */
export async function voidGiftCards(tx: Tx, orderId: string, lines: { lineId: number; quantity: number }[], byAmount: boolean): Promise<void> {
  if (byAmount) {
    if (await orderHasLiveGiftCards(tx, orderId)) throw new AppError('failed-precondition', GIFT_CARD_MESSAGES.refundByLine);
    return;
  }
  if (lines.length === 0) return;
  const items = await itemsAtPositions(
    tx,
    orderId,
    lines.map((line) => line.lineId),
  );
  const units = new Map<string, number>();
  for (const line of lines) {
    const item = items.find((candidate) => candidate.position === line.lineId);
    const variantId = item?.variantId ?? item?.productId;
    if (variantId) units.set(variantId, (units.get(variantId) ?? 0) + line.quantity);
  }
  await voidGiftCardsForRefund(tx, orderId, units);
}
