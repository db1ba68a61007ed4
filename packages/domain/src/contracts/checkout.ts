import { z } from 'zod';
import { paymentLinkInputSchema, quoteInputSchema, walletOrderInputSchema } from '../pricing-schemas.ts';
import { defineContract, noInput } from './define.ts';
import { orderLineOutput } from './orders.ts';

/** domain/pricing.ts's Quote with the priced lines (spec section 9). */
export const quoteOutput = z.object({
  subtotalCents: z.number(),
  /** Taken off the subtotal by the discount code (issue 27); 0 without one. */
  discountCents: z.number(),
  /** The code applied, as the label wrote it; null without one. */
  discountCode: z.string().nullable(),
  /** The code typed was not applied: why (the quote is then priced without it). */
  discountRefused: z.string().nullable(),
  /** The cart holds a gift card (issue 27): checkout asks for its recipient; no wallet credit, no code. */
  giftCard: z.boolean(),
  /** The wallet was asked for and refused (a gift card cannot be paid with it): why; the quote is priced without it. */
  walletRefused: z.string().nullable(),
  shippingCents: z.number(),
  taxCents: z.number(),
  totalCents: z.number(),
  walletAppliedCents: z.number(),
  amountDueCents: z.number(),
  cardFeeCents: z.number(),
  chargeCents: z.number(),
  lines: z.array(orderLineOutput),
  /** Issue 26: tax inside VAT-inclusive prices, the tax line's jurisdiction, the chosen method and the zone's others. */
  taxIncludedCents: z.number(),
  taxJurisdiction: z.string(),
  shippingMethodId: z.string().nullable(),
  shippingMethodName: z.string().nullable(),
  shippingZoneId: z.string().nullable(),
  shippingMethods: z.array(z.object({ id: z.string(), name: z.string(), shippingCents: z.number() })),
});

/** The buyer's open card payment (decision 044): at most one; null when none is open. */
export const openPaymentOutput = z.object({
  checkout: z
    .object({
      checkoutId: z.string(),
      url: z.string(),
      items: z.array(orderLineOutput),
      walletHeldCents: z.number(),
      chargeCents: z.number(),
      totalCents: z.number(),
      expiresAt: z.string(),
    })
    .nullable(),
});

/** The spec's checkout functions plus quoteCheckout, and the buyer's open payment; every price comes from the database. */
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
  /** /checkout offers to resume or cancel it, with the wallet part it holds. */
  getOpenPayment: defineContract({ access: 'signed-in', input: noInput, output: openPaymentOutput }),
  /** Ends the buyer's own open payment and gives its held credit and units back at once. */
  cancelOpenPayment: defineContract({
    access: 'signed-in',
    input: z.object({ checkoutId: z.string().min(1).max(100) }).strict(),
    output: z.object({ cancelled: z.boolean() }),
  }),
};
