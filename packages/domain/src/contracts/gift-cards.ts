import { z } from 'zod';
import { redeemGiftCardInput, setProductGiftCardInput } from '../gift-card-schemas.ts';
import { defineContract } from './define.ts';

/** Gift cards (issue 27, decision 053). */
export const giftCardContracts = {
  /** Makes a product a gift card (its variants' prices are the amounts) or an ordinary one again (admin). */
  setProductGiftCard: defineContract({ access: 'admin', input: setProductGiftCardInput, output: z.object({ ok: z.literal(true) }) }),
  /** The recipient redeems a code as wallet credit, once (signed in). */
  redeemGiftCard: defineContract({ access: 'signed-in', input: redeemGiftCardInput, output: z.object({ amountCents: z.number(), balanceCents: z.number() }) }),
};
