import { z } from 'zod';
import { optionalNullable } from './contracts/define.ts';
import { DISCOUNT_CODE_PATTERN, DISCOUNT_KINDS, DISCOUNT_MESSAGES, DISCOUNT_SCOPES } from './discounts.ts';
import { MAX_ORDER_TOTAL_CENTS } from './pricing.ts';

/** The label's discount code form as the server checks it (issue 27, decision 052), with discounts.ts's messages. */
export const createDiscountCodeInput = z
  .object({
    code: z.string().trim().regex(DISCOUNT_CODE_PATTERN, DISCOUNT_MESSAGES.codeFormat),
    kind: z.enum(DISCOUNT_KINDS),
    /** Percent (1-100) or cents. */
    value: z.number().int(DISCOUNT_MESSAGES.amountRange).min(1, DISCOUNT_MESSAGES.amountRange).max(MAX_ORDER_TOTAL_CENTS, DISCOUNT_MESSAGES.amountRange),
    scope: z.enum(DISCOUNT_SCOPES),
    categoryId: optionalNullable(z.string().min(1).max(64)),
    productIds: optionalNullable(z.array(z.string().min(1).max(64)).max(100)),
    minSubtotalCents: optionalNullable(z.number().int().min(0).max(MAX_ORDER_TOTAL_CENTS)),
    startsAt: optionalNullable(z.iso.datetime({ offset: true })),
    endsAt: optionalNullable(z.iso.datetime({ offset: true })),
    useLimit: optionalNullable(z.number().int(DISCOUNT_MESSAGES.limitRange).min(1, DISCOUNT_MESSAGES.limitRange).max(1_000_000_000, DISCOUNT_MESSAGES.limitRange)),
    oncePerAccount: optionalNullable(z.boolean()),
  })
  .strict()
  .superRefine((input, ctx) => {
    if (input.kind === 'percent' && input.value > 100) ctx.addIssue({ code: 'custom', path: ['value'], message: DISCOUNT_MESSAGES.percentRange });
    if (input.scope === 'category' && !input.categoryId) ctx.addIssue({ code: 'custom', path: ['categoryId'], message: DISCOUNT_MESSAGES.categoryNeeded });
    if (input.scope === 'products' && !input.productIds?.length) ctx.addIssue({ code: 'custom', path: ['productIds'], message: DISCOUNT_MESSAGES.productsNeeded });
    if (input.startsAt && input.endsAt && Date.parse(input.endsAt) <= Date.parse(input.startsAt))
      ctx.addIssue({ code: 'custom', path: ['endsAt'], message: DISCOUNT_MESSAGES.dates });
  });

export type CreateDiscountCodeInput = z.output<typeof createDiscountCodeInput>;

export const setDiscountCodeActiveInput = z.object({ codeId: z.string().min(1).max(64), active: z.boolean() }).strict();

/** A refunded order's code use given back, when the label says so (issue 27). */
export const returnDiscountUseInput = z.object({ orderId: z.string().min(1).max(64) }).strict();
