import { publicUrl, type Config } from '../config.ts';
import { defineArea } from '../http/area.ts';
import { deskRoutes } from './desk.routes.ts';
import { ordersFunctions } from './orders.functions.ts';
import type { RefundDeps } from './refunds.service.ts';
import { recordTax, reverseTax } from './tax.step.ts';
import { applyRefundEvent } from './refund-events.service.ts';
import { runRefundRetry, sweepStalledRefunds } from './refund.flow.ts';
import type { Every, JobQueue } from '../jobs/queue.ts';
import type { Db } from '../db/client.ts';
import type { PaymentProviders } from '../payments/payment-provider.factory.ts';
import type { CallerResolver } from '../accounts/auth.routes.ts';
import type { TaxCalculator } from '../shipping/stripe-tax.ts';

/** What app.ts hands the orders area. */
export interface OrdersOptions {
  config: Config;
  db: Db;
  every: Every;
  jobs: JobQueue;
  payments: PaymentProviders;
  resolveCaller: CallerResolver;
  /** Stripe Tax (decision 051); null without a Stripe key. */
  tax: TaxCalculator | null;
}

/** A shopper's orders and the order desk. */
export const ordersArea = defineArea('orders', async (app, { config, db, jobs, payments, resolveCaller, every, tax }: OrdersOptions) => {
  await app.register(deskRoutes, { db, resolveCaller });
  // Card refunds that got no answer: retried with backoff, once across processes (decision 034).
  const refundDeps: RefundDeps = {
    db,
    jobs,
    provider: payments.provider,
    publicUrl: publicUrl(config),
    refundRetry: { attempts: config.REFUND_RETRY_ATTEMPTS, baseMs: config.REFUND_RETRY_BASE_MS },
  };
  await jobs.work<{ refundId: string }>('refund-retry', (job) => runRefundRetry(refundDeps, job));
  await every('refund-sweep', '* * * * *', () => sweepStalledRefunds(refundDeps));
  // The local provider's own later refund events (a refund that fails, LOCAL_REFUND_FAILURES):
  // verified and applied as a webhook's would be.
  const local = payments.local;
  if (local) local.onEvent((body, signature) => applyRefundEvent(refundDeps, local.parseEvent(body, signature)));
  // Stripe Tax (decision 051): an order's calculation recorded as a transaction; a refund reverses what it gave back.
  await jobs.work<{ orderId: string }>('record-tax', async ({ orderId }) => recordTax({ db, tax }, orderId));
  await jobs.work<{ orderId: string; refundId?: string }>('reverse-tax', async ({ orderId, refundId }) => reverseTax({ db, tax }, orderId, refundId));
  return { functions: ordersFunctions(refundDeps) };
});
