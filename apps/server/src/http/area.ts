import type { FastifyInstance } from 'fastify';
import type { callerResolver, sessionResolver } from '../accounts/auth.routes.ts';
import type { Auth } from '../accounts/auth.ts';
import type { CheckoutDeps } from '../checkout/checkout.flow.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/client.ts';
import type { CallableFunction } from '../functions/registry.ts';
import type { JobQueue } from '../jobs/queue.ts';
import type { LiveHub } from '../live/live.hub.ts';
import type { Mail } from '../mail/mailer.ts';
import type { paymentProviderFor } from '../payments/payment-provider.factory.ts';
import type { PaymentEventHandlers } from '../payments/provider.ts';
import type { PublicPages } from '../web/public-pages.ts';

/** What buildApp makes once and hands to every area (issue 14 item 7, decision 036). */
export interface AreaContext {
  config: Config;
  db: Db;
  jobs: JobQueue;
  queueMail(mail: Mail): Promise<void>;
  auth: Auth;
  resolveSession: ReturnType<typeof sessionResolver>;
  resolveCaller: ReturnType<typeof callerResolver>;
  hub: LiveHub;
  /** The card provider (tests pass a fake Stripe) and, with fake payments, the local pay page. */
  payments: ReturnType<typeof paymentProviderFor>;
  /** Checkouts, orders and the payment webhooks share these. */
  checkout: CheckoutDeps;
  /** What a verified provider event means: the checkout's payment flow and the orders' refunds (payments imports neither). */
  paymentEvents: PaymentEventHandlers;
  /** The public pages whose <head> the server writes, and sitemap.xml's addresses (decision 058). */
  pages: PublicPages;
  /** Runs `task` on a cron schedule, once per tick across all processes. */
  every(queue: string, cron: string, task: () => Promise<unknown>): Promise<void>;
}

/**
 * One area of the shop (a folder under src/): it registers its routes and jobs on the app
 * and returns its callable functions. buildApp lists the areas; adding an area is adding a
 * folder with an `<area>.plugin.ts` and one line there.
 */
export interface Area {
  name: string;
  register(app: FastifyInstance, context: AreaContext): Promise<{ functions?: CallableFunction[] } | void>;
}

export function defineArea(name: string, register: Area['register']): Area {
  return { name, register };
}
