import { MAX_GIFT_CARD_AMOUNTS, MAX_GIFT_CARD_CENTS, MIN_GIFT_CARD_CENTS } from '@storefront/domain/gift-cards.ts';
import { formatUsd } from '@storefront/domain/catalog.ts';
import { recordAudit } from '../audit/audit.service.ts';
import { setProductGiftCard, variantPricesOf } from '../catalog/product-flags.service.ts';
import { runTransaction } from '../db/transaction.ts';
import { defineFunction } from '../functions/registry.ts';
import { AppError } from '../errors.ts';
import type { JobQueue } from '../jobs/queue.ts';
import { listGiftCards, redeemGiftCard, resendGiftCard } from './giftcards.service.ts';

/** Gift cards (issue 27, decision 053): the label marks a product as one; the recipient redeems a code. */
export const giftCardFunctions = (jobs: JobQueue) => [
  defineFunction('setProductGiftCard', async ({ productId, giftCard }, { db, caller }) => {
    const prices = await variantPricesOf(db, productId);
    if (prices.length === 0) throw new AppError('not-found', 'Product not found.');
    if (giftCard && prices.length > MAX_GIFT_CARD_AMOUNTS) throw new AppError('failed-precondition', `A gift card has at most ${MAX_GIFT_CARD_AMOUNTS} amounts.`);
    if (giftCard && prices.some((cents) => cents < MIN_GIFT_CARD_CENTS || cents > MAX_GIFT_CARD_CENTS)) {
      throw new AppError('failed-precondition', `Each gift card amount must be between ${formatUsd(MIN_GIFT_CARD_CENTS)} and ${formatUsd(MAX_GIFT_CARD_CENTS)}.`);
    }
    await runTransaction(db, async (tx) => {
      await setProductGiftCard(tx, productId, giftCard);
      await recordAudit(tx, { actor: { userId: caller.userId }, action: 'product.gift-card', targetType: 'product', targetId: productId, after: { giftCard } });
    });
    return { ok: true as const };
  }),
  defineFunction('listGiftCards', async ({ status }, { db }) => listGiftCards(db, status)),
  defineFunction('resendGiftCard', async ({ giftCardId }, { db, caller }) => {
    await runTransaction(db, async (tx) => {
      await resendGiftCard(tx, jobs, giftCardId);
      await recordAudit(tx, { actor: { userId: caller.userId }, action: 'gift-card.resend', targetType: 'gift-card', targetId: giftCardId });
    });
    return { ok: true as const };
  }),
  defineFunction('redeemGiftCard', async ({ code }, { db, caller }) => redeemGiftCard(db, caller.userId, code)),
];
