import { z } from 'zod';
import { paymentLinkInputSchema, quoteInputSchema, walletOrderInputSchema } from '../pricing-schemas.ts';
import { defineContract } from './define.ts';
import { orderLineOutput } from './orders.ts';

/** domain/pricing.ts's Quote with the priced lines (spec section 9). */
export const quoteOutput = z.object({
  subtotalCents: z.number(),
  shippingCents: z.number(),
  taxCents: z.number(),
  totalCents: z.number(),
  walletAppliedCents: z.number(),
  amountDueCents: z.number(),
  cardFeeCents: z.number(),
  chargeCents: z.number(),
  lines: z.array(orderLineOutput),
});

/** The spec's checkout functions plus quoteCheckout; every price comes from the database. */
export const checkoutContracts = {
  quoteCheckout: defineContract({ access: 'signed-in', input: quoteInputSchema, output: quoteOutput }),
  completeWalletOnlyOrderStreetFlavor: defineContract({
    access: 'signed-in',
    input: walletOrderInputSchema,
    output: z.object({ ok: z.literal(true), orderId: z.string(), paymentIntentId: z.string(), redirectUrl: z.string() }),
  }),
  createPaymentLinkStreetFlavorMerch: defineContract({
    access: 'signed-in',
    input: paymentLinkInputSchema,
    output: z.object({ ok: z.literal(true), url: z.string(), checkoutId: z.string() }),
  }),
};
