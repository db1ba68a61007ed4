import { z } from 'zod';
import { giftCardRowSchema, listGiftCardsInput, redeemGiftCardInput, resendGiftCardInput, setProductGiftCardInput } from '../gift-card-schemas.ts';
import { defineContract } from './define.ts';

/** Gift cards (issue 27, decision 053). */
export const giftCardContracts = {
  /** Makes a product a gift card (its variants' prices are the amounts) or an ordinary one again (admin). */
  setProductGiftCard: defineContract({ access: 'admin', input: setProductGiftCardInput, output: z.object({ ok: z.literal(true) }) }),
  /** The gift cards that exist, newest first, at most 500 (admin; issue 40 item 3). */
  listGiftCards: defineContract({ access: 'admin', input: listGiftCardsInput, output: z.object({ cards: z.array(giftCardRowSchema), more: z.boolean() }) }),
  /** Sends a sold card's mail to its recipient again, with the same code (admin). */
  resendGiftCard: defineContract({ access: 'admin', input: resendGiftCardInput, output: z.object({ ok: z.literal(true) }) }),
  /** The recipient redeems a code as wallet credit, once (signed in). */
  redeemGiftCard: defineContract({ access: 'signed-in', input: redeemGiftCardInput, output: z.object({ amountCents: z.number(), balanceCents: z.number() }) }),
};
