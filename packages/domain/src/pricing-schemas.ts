import { z } from 'zod';
import { nullableDefault, optionalNullable } from './contracts/define.ts';
import { DISCOUNT_MESSAGES } from './discounts.ts';
import { giftOption } from './gift-card-schemas.ts';
import { CHECKOUT_MESSAGES, MAX_CART_LINES, MAX_LINE_QTY, MAX_NAMED_PRICE_CENTS } from './pricing.ts';

/**
 * The checkout requests as the server checks them (spec sections 5 and 9), with the
 * messages of pricing.ts. Optional fields also accept null (what the Firebase SDK sends).
 */

export const cartItemsSchema = z
  .array(
    z
      .object({
        id: z.string().min(1).max(64),
        /** The variant (issue 15); absent: the product's default variant, as in carts saved before variants. */
        variantId: z.string().min(1).max(80).optional(),
        qty: z.number().int('Quantities must be whole numbers.').min(1, 'Quantities must be at least 1.').max(MAX_LINE_QTY, `At most ${MAX_LINE_QTY} of one item.`),
        /** The buyer's price for a "name your price" item (issue 28), in whole cents; at least the item's price. */
        amountCents: z
          .number()
          .int(CHECKOUT_MESSAGES.namedPriceCents)
          .min(0, CHECKOUT_MESSAGES.namedPriceCents)
          .max(MAX_NAMED_PRICE_CENTS, CHECKOUT_MESSAGES.namedPriceTooHigh)
          .optional(),
      })
      .strict(),
  )
  .min(1, CHECKOUT_MESSAGES.emptyCart)
  .max(MAX_CART_LINES, `At most ${MAX_CART_LINES} different items.`)
  .refine((items) => new Set(items.map((item) => `${item.id}\u0000${item.variantId ?? ''}`)).size === items.length, 'Each product may appear once in the cart.');

export const contactSchema = z
  .object({
    name: z.string().trim().min(1, CHECKOUT_MESSAGES.fullName).max(100),
    email: z
      .string()
      .trim()
      .max(254)
      .regex(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, CHECKOUT_MESSAGES.email),
    phone: nullableDefault(z.string().trim().max(40), ''),
  })
  .strict();

export const shippingSchema = z
  .object({
    name: z.string().trim().min(1, 'Please enter the name for the shipping label.').max(100),
    line1: z.string().trim().min(1, 'Please enter the street address.').max(200),
    line2: nullableDefault(z.string().trim().max(200), ''),
    city: z.string().trim().min(1, 'Please enter the city.').max(100),
    state: nullableDefault(z.string().trim().max(100), ''),
    postal_code: z.string().trim().min(1, 'Please enter the postal code.').max(20),
    country: z.string().trim().length(2, 'Please choose the country.').toUpperCase(),
  })
  .strict();

/** Where a quote ships to while the address is being typed (issue 26): the country decides the zone, a US state its tax. */
export const destinationSchema = z
  .object({
    country: z.string().trim().length(2, 'Please choose the country.').toUpperCase(),
    state: nullableDefault(z.string().trim().max(100), ''),
    postal_code: nullableDefault(z.string().trim().max(20), ''),
  })
  .strict();

/** The shipping method the buyer picked ("standard", "express"); absent: the zone's first. */
const shippingMethodIdSchema = optionalNullable(z.string().trim().max(40));

/** A discount code as typed at checkout (issue 27): optional; checked against the code's rules by the server. */
export const discountCodeInput = optionalNullable(z.string().trim().max(64, DISCOUNT_MESSAGES.notUsable));

export const quoteInputSchema = z
  .object({
    items: cartItemsSchema,
    useWallet: z.boolean(),
    destination: optionalNullable(destinationSchema),
    shippingMethodId: shippingMethodIdSchema,
    discountCode: discountCodeInput,
  })
  .strict();

const quoteSchema = z.object({
  subtotalCents: z.number().int(),
  shippingCents: z.number().int(),
  taxCents: z.number().int(),
  walletAppliedCents: z.number().int(),
  totalCents: z.number().int(),
  /** The reviewed discount (issue 27); absent: none. */
  discountCents: optionalNullable(z.number().int()),
});

export const checkoutIdSchema = z.string().regex(/^[A-Za-z0-9_-]{8,64}$/, 'A checkout id is 8 to 64 letters, digits, _ or -.');

export const walletOrderInputSchema = z
  .object({
    items: cartItemsSchema,
    contact: contactSchema,
    /** Absent only for a cart of digital lines (issue 28): the server refuses a cart that ships without it. */
    shipping: optionalNullable(shippingSchema),
    quote: quoteSchema,
    checkoutId: checkoutIdSchema,
    shippingMethodId: shippingMethodIdSchema,
    discountCode: discountCodeInput,
    /** The checkout's "Follow the artists" box (issue 37, decision 074): absent or false follows nobody. */
    followArtists: optionalNullable(z.boolean()),
    /** The checkout's own, unticked "Send me news" box (decision 074): consent recorded apart from the order. */
    marketingConsent: optionalNullable(z.boolean()),
  })
  .strict();

export const paymentLinkInputSchema = z
  .object({
    items: cartItemsSchema,
    useWallet: z.boolean(),
    contact: contactSchema,
    /** Absent only for a cart of digital lines (issue 28). */
    shipping: optionalNullable(shippingSchema),
    redirectUrl: optionalNullable(z.string().max(500)),
    checkoutId: optionalNullable(checkoutIdSchema),
    shippingMethodId: shippingMethodIdSchema,
    /** The totals the buyer reviewed (issue 26): when given, a changed price, rate or tax is refused before payment. */
    quote: optionalNullable(quoteSchema),
    discountCode: discountCodeInput,
    /** The gift cards' recipient and message (issue 27, decision 053): required with a gift card, refused without. */
    gift: giftOption,
    /** The checkout's "Follow the artists" box: the paid order follows the artists of what was bought (decision 074). */
    followArtists: optionalNullable(z.boolean()),
    /** The checkout's own, unticked "Send me news" box (decision 074): consent recorded apart from the order. */
    marketingConsent: optionalNullable(z.boolean()),
  })
  .strict();

export type Contact = z.infer<typeof contactSchema>;
export type Shipping = z.infer<typeof shippingSchema>;
export type QuoteDestination = z.infer<typeof destinationSchema>;
export type CartItems = z.infer<typeof cartItemsSchema>;
