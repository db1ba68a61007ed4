import { z } from 'zod';
import { createDiscountCodeInput, returnDiscountUseInput, setDiscountCodeActiveInput } from '../discount-schemas.ts';
import { DISCOUNT_KINDS, DISCOUNT_SCOPES } from '../discounts.ts';
import { defineContract, noInput } from './define.ts';

/** A discount code as the console lists it, with its uses (issue 27, decision 052). */
export const discountCodeOutput = z.object({
  id: z.string(),
  code: z.string(),
  kind: z.enum(DISCOUNT_KINDS),
  value: z.number(),
  scope: z.enum(DISCOUNT_SCOPES),
  categoryId: z.string().nullable(),
  productIds: z.array(z.string()),
  minSubtotalCents: z.number(),
  startsAt: z.string().nullable(),
  endsAt: z.string().nullable(),
  useLimit: z.number().nullable(),
  oncePerAccount: z.boolean(),
  active: z.boolean(),
  /** Uses counted against the limit: orders made with it and card checkouts holding one. */
  uses: z.number(),
  /** Of those, uses of paid orders. */
  usedInOrders: z.number(),
  /** Of those, uses held by card checkouts not yet paid. */
  held: z.number(),
  /** Uses given back by refunds the label chose to return. */
  returned: z.number(),
  discountedCents: z.number(),
  createdAt: z.string(),
});

export const discountContracts = {
  /** The label makes a code (admin). */
  createDiscountCode: defineContract({ access: 'admin', input: createDiscountCodeInput, output: discountCodeOutput }),
  /** Every code with its uses, newest first (admin). */
  listDiscountCodes: defineContract({ access: 'admin', input: noInput, output: z.object({ codes: z.array(discountCodeOutput) }) }),
  /** Stops a code at once, or lets it be used again (admin). */
  setDiscountCodeActive: defineContract({ access: 'admin', input: setDiscountCodeActiveInput, output: discountCodeOutput }),
  /** A fully refunded order's code use counts no more: the label chose to give it back (admin). */
  returnDiscountUse: defineContract({ access: 'admin', input: returnDiscountUseInput, output: z.object({ returned: z.literal(true), code: z.string() }) }),
};
