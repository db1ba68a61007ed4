import { z } from 'zod';
import { optionalNullable } from './contracts/define.ts';
import { GIFT_CARD_MESSAGE_MAX, GIFT_CARD_MESSAGES, giftRecipientProblem } from './gift-cards.ts';

/** What the buyer of a gift card names at checkout (issue 27, decision 053): the recipient and a message. */
export const giftInputSchema = z
  .object({
    recipientEmail: z.string().trim().max(254, GIFT_CARD_MESSAGES.recipientInvalid),
    message: z
      .string()
      .max(GIFT_CARD_MESSAGE_MAX, GIFT_CARD_MESSAGES.messageTooLong)
      .transform((message) => message.trim())
      .default(''),
  })
  .strict()
  .superRefine((gift, ctx) => {
    const problem = giftRecipientProblem(gift);
    if (problem)
      ctx.addIssue({
        code: 'custom',
        message: problem,
        path: [problem === GIFT_CARD_MESSAGES.recipientNeeded || problem === GIFT_CARD_MESSAGES.recipientInvalid ? 'recipientEmail' : 'message'],
      });
  });

export const giftOption = optionalNullable(giftInputSchema);

export const setProductGiftCardInput = z.object({ productId: z.string().min(1).max(100), giftCard: z.boolean() }).strict();

export const redeemGiftCardInput = z.object({ code: z.string().max(64, GIFT_CARD_MESSAGES.codeInvalid) }).strict();

export type GiftInput = z.infer<typeof giftInputSchema>;

/** The console's list of gift cards (issue 40 item 3): all, or those in one state. */
export const GIFT_CARD_STATES = ['pending', 'active', 'redeemed', 'void'] as const;
export type GiftCardState = (typeof GIFT_CARD_STATES)[number];
export const listGiftCardsInput = z.object({ status: optionalNullable(z.enum(GIFT_CARD_STATES)) }).strict();

export const giftCardRowSchema = z.object({
  id: z.string(),
  status: z.enum(GIFT_CARD_STATES),
  amountCents: z.number(),
  recipientEmail: z.string(),
  buyerEmail: z.string().nullable(),
  orderId: z.string().nullable(),
  createdAt: z.string(),
  activatedAt: z.string().nullable(),
  mailedAt: z.string().nullable(),
  redeemedAt: z.string().nullable(),
  voidedAt: z.string().nullable(),
});

export const resendGiftCardInput = z.object({ giftCardId: z.string().min(1).max(64) }).strict();
