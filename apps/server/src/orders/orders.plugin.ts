import { defineArea } from '../http/area.ts';
import { deskRoutes } from './desk.routes.ts';
import { ordersFunctions } from './orders.functions.ts';
import { runRefundRetry, sweepStalledRefunds, type RefundDeps } from './refunds.service.ts';

/** A shopper's orders and the order desk. */
export const ordersArea = defineArea('orders', async (app, { checkout, config, db, jobs, resolveCaller, every }) => {
  await app.register(deskRoutes, { db, resolveCaller });
  // Card refunds that got no answer: retried with backoff, once across processes (decision 034).
  const refundDeps: RefundDeps = { ...checkout, refundRetry: { attempts: config.REFUND_RETRY_ATTEMPTS, baseMs: config.REFUND_RETRY_BASE_MS } };
  await jobs.work<{ refundId: string }>('refund-retry', (job) => runRefundRetry(refundDeps, job));
  await every('refund-sweep', '* * * * *', () => sweepStalledRefunds(refundDeps));
  return { functions: ordersFunctions(refundDeps) };
});
