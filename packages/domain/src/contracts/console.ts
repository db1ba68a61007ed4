import { z } from 'zod';
import { deleteProductInput, listAuditInput, moveProductInput, setAdminInput, setProductActiveInput } from '../console.ts';
import { periodDays, SALES_MAX_DAYS, SALES_MESSAGES } from '../sales.ts';
import { defineContract, noInput, okOutput } from './define.ts';

const isoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, SALES_MESSAGES.date);

/**
 * `from`/`to` (inclusive days in the label's time zone), or `days`: the last n days up to
 * today. Nothing: the last 30 days.
 */
export const salesOverviewInput = z
  .object({
    days: z.number().int().min(1, SALES_MESSAGES.period).max(SALES_MAX_DAYS, SALES_MESSAGES.period).nullish(),
    from: isoDate.nullish(),
    to: isoDate.nullish(),
  })
  .strict()
  .nullish()
  .transform((value) => ({ days: value?.days ?? undefined, from: value?.from ?? undefined, to: value?.to ?? undefined }))
  .refine((value) => (value.from === undefined) === (value.to === undefined), { message: SALES_MESSAGES.period })
  .refine((value) => value.from === undefined || periodDays(value.from, value.to!) !== null, { message: SALES_MESSAGES.period });

export type SalesOverviewInput = z.input<typeof salesOverviewInput>;

/** A product as every client reads it (domain/catalog.ts's Product), withdrawn ones included. */
export const productOutput = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  priceCents: z.number(),
  weightGrams: z.number().nullable().optional(),
  images: z.array(z.string()),
  order: z.number(),
  isActive: z.boolean(),
  category: z.string(),
  updatedAt: z.string(),
  /** Issue 15: up to 3 options, and one variant per combination (the default variant without options). */
  options: z.array(z.object({ name: z.string(), values: z.array(z.string()) })),
  variants: z.array(
    z.object({
      id: z.string(),
      options: z.array(z.string()),
      sku: z.string(),
      priceCents: z.number(),
      stock: z.number().nullable(),
      perCustomerLimit: z.number().nullable().optional(),
      weightGrams: z.number().nullable().optional(),
      /** The variant's own street date (decision 054); absent or null: the product's. */
      releaseDate: z.string().nullable().optional(),
    }),
  ),
  /** A preorder's street date, YYYY-MM-DD (decision 054); absent or null: the product is out. */
  releaseDate: z.string().nullable().optional(),
  /** A bundle (issue 27, decision 055): what it includes; a bundle variant's stock is what its parts allow. */
  includes: z.array(z.string()).optional(),
  /** A digital product that sells a release (issue 39 item 6): its page is the release's, /music/<releaseId>; its shop card opens it. */
  releaseId: z.number().optional(),
  /** false: not a card of the shop (a release's track sold alone: the release is one card). */
  listed: z.literal(false).optional(),
});

/** One entry of the console's activity list (decision 031). */
export const auditEntryOutput = z.object({
  id: z.string(),
  at: z.string(),
  actor: z.string(),
  action: z.string(),
  targetType: z.string(),
  targetId: z.string(),
  before: z.unknown(),
  after: z.unknown(),
});

export const adminAccountOutput = z.object({
  userId: z.string(),
  email: z.string(),
  name: z.string(),
  /** Admin through ADMIN_EMAILS: only the setting can take it away. */
  fromSetting: z.boolean(),
  /** Admin through the database role (make-admin, or granted in the console). */
  fromRole: z.boolean(),
});

/** The figures of a period (issue 39, decision 045 amended in session 12): definitions in SALES_FIGURES (domain sales.ts). */
const salesFigures = z.object({
  orders: z.number(),
  grossSalesCents: z.number(),
  discountsCents: z.number(),
  returnsCents: z.number(),
  netSalesCents: z.number(),
  shippingCents: z.number(),
  taxCollectedCents: z.number(),
  taxIncludedCents: z.number(),
  cardFeesCents: z.number(),
  giftCardsSoldCents: z.number(),
  totalCollectedCents: z.number(),
  paidWalletCents: z.number(),
  paidCardCents: z.number(),
  refundsCents: z.number(),
  refundedWalletCents: z.number(),
  refundedCardCents: z.number(),
  refundedShippingCents: z.number(),
  refundedTaxCents: z.number(),
  refundedCardFeesCents: z.number(),
  refundedGiftCardsCents: z.number(),
  netReceiptsCents: z.number(),
});

const salesGoods = z.object({
  productId: z.string(),
  name: z.string(),
  unitsSold: z.number(),
  grossSalesCents: z.number(),
  unitsRefunded: z.number(),
  refundedGoodsCents: z.number(),
});

/**
 * The sales overview (issue 29 item 1, decision 045). Money is integer cents. Orders count on the
 * day they were placed, refunds on the day they were given, both in `timeZone`. Products and
 * variants are goods only (their lines' price times quantity), without shipping, tax or fees.
 */
export const salesOverviewOutput = z.object({
  timeZone: z.string(),
  from: z.string(),
  to: z.string(),
  totals: salesFigures,
  byDay: z.array(salesFigures.extend({ day: z.string() })),
  byProduct: z.array(salesGoods),
  byVariant: z.array(salesGoods.extend({ variantId: z.string().nullable(), variant: z.string() })),
  ordersToShip: z.number(),
  /** Issue 26: the tax of the orders placed in the period by the jurisdiction their tax line names ('' for the spec's default). */
  byTaxJurisdiction: z.array(z.object({ jurisdiction: z.string(), orders: z.number(), taxCents: z.number(), taxIncludedCents: z.number() })).optional(),
  /** The discount codes used by the orders placed in the period (issue 27): orders and what each code took off. */
  byCode: z.array(z.object({ code: z.string(), orders: z.number(), discountsCents: z.number() })),
  /** Issue 28: the goods split into digital (files) and physical (parcels) lines, gift cards left out; the two add up to the goods of byProduct. */
  byKind: z.array(salesGoods.omit({ productId: true, name: true }).extend({ kind: z.enum(['digital', 'physical']) })).optional(),
  /**
   * Gift cards as a liability (issue 27, decision 053 amended in session 12): paid, redeemed and
   * voided in the period; at its end, cards neither redeemed nor voided (`outstanding`) and
   * redeemed credit still unspent in wallets (`walletCredit`), together the `liability`;
   * `spent`: gift-card credit spent on orders in the period (less what refunds gave back to it).
   */
  giftCards: z
    .object({
      soldCents: z.number(),
      soldCount: z.number(),
      redeemedCents: z.number(),
      voidedCents: z.number(),
      outstandingCents: z.number(),
      walletCreditCents: z.number(),
      spentCents: z.number(),
      liabilityCents: z.number(),
    })
    .optional(),
  /**
   * Preorders sold in the period (issue 27, decision 054), by street date: units and goods paid now,
   * and the units not yet out (their release job has not run).
   */
  byPreorder: z
    .array(
      z.object({
        productId: z.string(),
        variantId: z.string().nullable(),
        name: z.string(),
        shipsOn: z.string(),
        unitsSold: z.number(),
        grossSalesCents: z.number(),
        unitsWaiting: z.number(),
      }),
    )
    .optional(),
  /** The components the period's bundles sent out (issue 27, decision 055): units of each part, by bundle. */
  byBundlePart: z.array(z.object({ bundleId: z.string(), bundle: z.string(), variantId: z.string(), part: z.string(), units: z.number() })).optional(),
});

/** The label's console on /release (issue 18, decision 031): product tools, activity, admins, sales. */
/** What the money reconciler found (decision 044): shown in the console as "needs attention". */
export const attentionOutput = z.object({
  id: z.number(),
  kind: z.string(),
  subject: z.string(),
  detail: z.string(),
  healed: z.boolean(),
  createdAt: z.string(),
  resolvedAt: z.string().nullable(),
});

export const consoleContracts = {
  listNeedsAttention: defineContract({
    access: 'admin',
    input: z.object({ open: z.boolean().default(true) }).strict(),
    output: z.object({ items: z.array(attentionOutput) }),
  }),
  resolveNeedsAttention: defineContract({ access: 'admin', input: z.object({ id: z.number().int().positive() }).strict(), output: z.object({ resolved: z.boolean() }) }),
  /** giftCard: the product is a gift card (issue 27, decision 053). deleteBlocked: why Delete would be refused (ordered, or held by an open card checkout); null when it can succeed (issue 29 item 5). */
  listAllProducts: defineContract({
    access: 'admin',
    input: noInput,
    output: z.object({ products: z.array(productOutput.extend({ deleteBlocked: z.enum(['ordered', 'held']).nullable(), giftCard: z.boolean().optional() })) }),
  }),
  setProductActive: defineContract({ access: 'admin', input: setProductActiveInput, output: okOutput }),
  moveProduct: defineContract({ access: 'admin', input: moveProductInput, output: okOutput }),
  deleteProduct: defineContract({ access: 'admin', input: deleteProductInput, output: okOutput }),
  listAdminActivity: defineContract({
    access: 'admin',
    input: listAuditInput,
    output: z.object({ items: z.array(auditEntryOutput), next: z.string().nullable() }),
  }),
  listAdmins: defineContract({ access: 'admin', input: noInput, output: z.object({ admins: z.array(adminAccountOutput) }) }),
  /** changed: false when the account already had (or lacked) the rights. */
  setAdmin: defineContract({ access: 'admin', input: setAdminInput, output: z.object({ changed: z.boolean() }) }),
  getSalesOverview: defineContract({ access: 'admin', input: salesOverviewInput, output: salesOverviewOutput }),
};
