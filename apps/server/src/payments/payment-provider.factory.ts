import { type Config, publicUrl } from '../config.ts';
import type { Db } from '../db/client.ts';
import { createLocalProvider } from './local.provider.ts';
import type { PaymentProvider } from './provider.ts';
import { createStripeProvider } from './stripe.provider.ts';

/** The provider PAYMENT_PROVIDER names; `local` also gets its payment page. */
/** The card provider (tests pass a fake Stripe) and, with fake payments, the local pay page. */
export interface PaymentProviders {
  provider: PaymentProvider;
  local: ReturnType<typeof createLocalProvider> | null;
}

export function paymentProviderFor(config: Config, db?: Db): PaymentProviders {
  if (config.PAYMENT_PROVIDER === 'stripe') {
    return {
      provider: createStripeProvider({ secretKey: config.STRIPE_SECRET_KEY!, webhookSecret: config.STRIPE_WEBHOOK_SECRET!, publicUrl: publicUrl(config) }),
      local: null,
    };
  }
  const local = createLocalProvider(config.AUTH_SECRET, db, { refundFailures: config.LOCAL_REFUND_FAILURES });
  return { provider: local, local };
}
