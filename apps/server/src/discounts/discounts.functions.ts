import { DISCOUNT_MESSAGES } from '@storefront/domain/discounts.ts';
import { defineFunction } from '../functions/registry.ts';
import { AppError } from '../errors.ts';
import { orderRefundState } from '../orders/orders.service.ts';
import { createCode, listCodes, returnUse, setCodeActive } from './discounts.service.ts';

/** The label's discount codes (issue 27, decision 052): admins make, list, stop and give a refunded order's use back. */
export const discountFunctions = [
  defineFunction('createDiscountCode', async (input, { db, caller }) => createCode(db, { userId: caller.userId }, input)),
  defineFunction('listDiscountCodes', async (_input, { db }) => ({ codes: await listCodes(db) })),
  defineFunction('setDiscountCodeActive', async ({ codeId, active }, { db, caller }) => setCodeActive(db, { userId: caller.userId }, codeId, active)),
  defineFunction('returnDiscountUse', async ({ orderId }, { db, caller }) => {
    const order = await orderRefundState(db, orderId);
    if (!order) throw new AppError('not-found', 'Order not found.');
    if (order.refundStatus !== 'refunded') throw new AppError('failed-precondition', DISCOUNT_MESSAGES.notRefunded);
    const code = await returnUse(db, order.checkoutId, { userId: caller.userId }, orderId);
    if (!code) throw new AppError('failed-precondition', DISCOUNT_MESSAGES.noUse);
    return { returned: true as const, code };
  }),
];
