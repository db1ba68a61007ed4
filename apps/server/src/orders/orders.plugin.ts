import { defineArea } from '../http/area.ts';
import { deskRoutes } from './desk.routes.ts';
import { ordersFunctions } from './orders.functions.ts';
import { applyRefundEvent, runRefundRetry, sweepStalledRefunds, type RefundDeps } from './refunds.service.ts';

/** A shopper's orders and the order desk. */
export const ordersArea = defineArea('orders', async (app, { checkout, config, db, jobs, payments, resolveCaller, every }) => {
  await app.register(deskRoutes, { db, resolveCaller });
  // Card refunds that got no answer: retried with backoff, once across processes (decision 034).
  const refundDeps: RefundDeps = { ...checkout, refundRetry: { attempts: config.REFUND_RETRY_ATTEMPTS, baseMs: config.REFUND_RETRY_BASE_MS } };
  await jobs.work<{ refundId: string }>('refund-retry', (job) => runRefundRetry(refundDeps, job));
  await every('refund-sweep', '* * * * *', () => sweepStalledRefunds(refundDeps));
  // The local provider's own later refund events (a refund that fails, LOCAL_REFUND_FAILURES):
  // verified and applied as a webhook's would be.
  const local = payments.local;
  if (local) local.onEvent((body, signature) => applyRefundEvent(refundDeps, local.parseEvent(body, signature)));
  return { functions: ordersFunctions(refundDeps) };
});
