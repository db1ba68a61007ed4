import { CHECKOUT_MESSAGES, type Quote } from '@storefront/domain/pricing.ts';
import { isSameSitePath } from '@storefront/domain/site-path.ts';
import type { Db } from '../db/client.ts';
import { AppError } from '../errors.ts';
import type { PaymentProvider } from '../payments/provider.ts';
import type { StockLine } from './cart.ts';
import { findCheckout, setPaymentSession, type Checkout } from './checkouts.service.ts';
import { closeCheckout } from './release.step.ts';

/**
 * Step "make link" of a card checkout (issue 23, decision 044): the payment provider's hosted
 * page, with its undo beside it (a page that could not be made ends the checkout and releases
 * its holds); a repeated call gets the page the first one made.
 */

export interface LinkDeps {
  db: Db;
  provider: PaymentProvider;
  publicUrl: string;
}

/** Step "make link": the provider's hosted page; if that fails, the checkout ends and releases what it held. */
export async function makeLink(deps: LinkDeps, checkoutId: string, lines: StockLine[], priced: Quote, email: string, expiresAt: Date): Promise<string> {
  try {
    const session = await deps.provider.createSession({
      checkoutId,
      chargeCents: priced.chargeCents,
      walletAppliedCents: priced.walletAppliedCents,
      discountCents: priced.discountCents,
      lines,
      shippingCents: priced.shippingCents,
      taxCents: priced.taxCents,
      cardFeeCents: priced.cardFeeCents,
      customerEmail: email,
      expiresAt,
    });
    await setPaymentSession(deps.db, checkoutId, session);
    return session.url;
  } catch (error) {
    // Compensation: nothing may stay held for a payment page that was never made.
    await closeCheckout(deps.db, checkoutId, 'failed');
    throw error;
  }
}

/** How long a repeated call waits for the first one to get its payment page. */
const PAYMENT_PAGE_WAIT_MS = 20_000;

/** The payment page of a checkout made by an earlier or concurrent call with its id. */
export async function existingPaymentUrl(deps: LinkDeps, checkoutId: string): Promise<string> {
  const until = Date.now() + PAYMENT_PAGE_WAIT_MS;
  for (;;) {
    const checkout = await findCheckout(deps.db, checkoutId);
    if (checkout?.status !== 'pending') throw new AppError('failed-precondition', CHECKOUT_MESSAGES.checkoutClosed);
    if (checkout.paymentUrl) return checkout.paymentUrl;
    // Made before payment pages were kept (decision 019).
    if (checkout.providerSessionId) return sessionUrl(deps, checkout);
    if (Date.now() > until) throw new AppError('unavailable', 'Your checkout is still starting. Please try again in a moment.');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export function sessionUrl(deps: LinkDeps, checkout: Checkout): string {
  return deps.provider.name === 'local' ? `/pay/${encodeURIComponent(checkout.id)}` : `${deps.publicUrl}/checkout`;
}

/** Only our own paths: never an open redirect. */
export function safeReturnPath(url: string | undefined): string {
  // Also only plain URL characters: the path is written into the payment provider's return URL.
  if (isSameSitePath(url) && /^[A-Za-z0-9\-._~/?=&%]*$/.test(url)) return url.split('?')[0]!;
  return '/order-confirmation';
}
