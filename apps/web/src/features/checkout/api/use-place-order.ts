import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { useNavigate } from '../../../lib/router.tsx';
import { CHECKOUT_MESSAGES, quotedTotals } from '@storefront/domain/pricing.ts';
import type { CartItems, Contact, Shipping } from '@storefront/domain/pricing-schemas.ts';
import { FunctionsError } from '@storefront/sdk/callable.ts';
import { cartStore } from '../../../lib/cart.ts';
import { toast } from '../../../lib/toast.ts';
import { withReason } from '../../../lib/error-message.ts';
import { CHECKOUT_TEXTS } from '../messages.ts';
import { CONFIRMATION_PATH, useCreatePaymentLink } from './create-payment-link.ts';
import { openPaymentQueryOptions, useCancelOpenPayment } from './open-payment.ts';
import { usePlaceWalletOrder } from './place-wallet-order.ts';
import { QUOTE_KEY, type CheckoutQuote } from './quote-checkout.ts';
import { isSameSitePath } from '@storefront/domain/site-path.ts';

export interface OrderToPlace {
  items: CartItems;
  useWallet: boolean;
  contact: Contact;
  /** Absent for a cart of digital lines only (issue 28): nothing ships. */
  shipping?: Shipping | undefined;
  quote: CheckoutQuote;
  /** The shipping method picked (issue 26); absent: the zone's first. */
  shippingMethodId?: string | undefined;
  /** A gift card's recipient and message (issue 27); only with a gift card in the cart. */
  gift?: { recipientEmail: string; message: string } | undefined;
  /** The "Follow the artists" box (issue 37, decision 074): the order follows what was bought. */
  followArtists?: boolean | undefined;
  /** Its own "Send me news" box (decision 074), unticked by default. */
  marketingConsent?: boolean | undefined;
}

/** 32 random hex characters; getRandomValues works on plain http too, unlike randomUUID. */
function newCheckoutId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** Only a path on this site: a redirect URL never leads elsewhere. */
function sitePath(url: string | undefined): string {
  return isSameSitePath(url) ? url : CONFIRMATION_PATH;
}

/** The provider's page (an http(s) address) or this site's own payment page; anything else is no page. */
function paymentPageUrl(answer: unknown): string | null {
  const url = typeof answer === 'object' && answer !== null && 'url' in answer ? answer.url : undefined;
  if (typeof url !== 'string' || !url) return null;
  if (url.startsWith('/') && !url.startsWith('//') && !url.startsWith('/\\')) return url;
  try {
    const { protocol } = new URL(url);
    return protocol === 'https:' || protocol === 'http:' ? url : null;
  } catch {
    return null;
  }
}

const isRefusal = (error: unknown) => error instanceof FunctionsError && error.code === 'failed-precondition';

/**
 * Place order (spec section 4, Checkout modes): a wallet-only order when nothing is left
 * to pay, otherwise the payment provider's page. One checkout id per attempt (same cart,
 * same wallet choice), kept on retries so a repeated click never makes a second order.
 */
export function usePlaceOrder() {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const walletOrder = usePlaceWalletOrder();
  const paymentLink = useCreatePaymentLink();
  const cancelOpen = useCancelOpenPayment();
  const [error, setError] = useState<string | null>(null);
  const [leaving, setLeaving] = useState(false);
  const attempt = useRef<{ key: string; id: string } | null>(null);

  useEffect(() => {
    // Back from the payment page out of the browser's page cache: the form works again.
    const onPageShow = (event: PageTransitionEvent) => {
      if (event.persisted) setLeaving(false);
    };
    window.addEventListener('pageshow', onPageShow);
    return () => window.removeEventListener('pageshow', onPageShow);
  }, []);

  const checkoutIdFor = (order: OrderToPlace) => {
    // Another address, method or code is another checkout (issues 26, 27).
    const key = JSON.stringify([order.items, order.useWallet, order.shipping, order.shippingMethodId, order.quote.discountCode]);
    if (attempt.current?.key !== key) attempt.current = { key, id: newCheckoutId() };
    return attempt.current.id;
  };

  // A refusal means prices, availability or the balance moved: show the new total.
  const refreshQuote = () => queryClient.invalidateQueries({ queryKey: QUOTE_KEY });

  const place = (order: OrderToPlace) => {
    setError(null);
    const checkoutId = checkoutIdFor(order);
    if (order.useWallet && order.quote.amountDueCents === 0) {
      // The quote counted the credit an open card payment holds (issue 39): that payment ends first.
      const open = queryClient.getQueryData(openPaymentQueryOptions().queryKey)?.checkout;
      void (open ? cancelOpen.mutateAsync(open.checkoutId).catch(() => false) : Promise.resolve(true)).then(() => placeWithWallet(order, checkoutId));
      return;
    }
    placeWithCard(order, checkoutId);
  };

  // The code the quote applied (issue 27): the server judges it again and takes its use.
  const placeWithWallet = (order: OrderToPlace, checkoutId: string) => {
    const { items, contact, shipping, quote, shippingMethodId } = order;
    const discountCode = quote.discountCode ?? undefined;
    walletOrder.mutate(
      {
        items,
        contact,
        shipping,
        quote: quotedTotals(quote),
        checkoutId,
        shippingMethodId,
        followArtists: order.followArtists ?? false,
        marketingConsent: order.marketingConsent ?? false,
        ...(discountCode ? { discountCode } : {}),
      },
      {
        onSuccess: (result) => {
          cartStore.clear();
          toast.success(CHECKOUT_MESSAGES.placedWithWallet);
          void navigate(sitePath(result.redirectUrl));
        },
        onError: (failure) => {
          console.warn('Wallet order failed:', failure);
          setError(withReason(CHECKOUT_MESSAGES.placeFailed, failure));
          if (isRefusal(failure)) void refreshQuote();
        },
      },
    );
  };

  const placeWithCard = (order: OrderToPlace, checkoutId: string) => {
    const { items, contact, shipping, quote, shippingMethodId } = order;
    const discountCode = quote.discountCode ?? undefined;
    paymentLink.mutate(
      // The reviewed totals go along: changed rates or tax are refused before the payment page (issue 26).
      {
        items,
        useWallet: order.useWallet,
        contact,
        shipping,
        checkoutId,
        shippingMethodId,
        quote: quotedTotals(quote),
        followArtists: order.followArtists ?? false,
        marketingConsent: order.marketingConsent ?? false,
        ...(discountCode ? { discountCode } : {}),
        ...(order.gift ? { gift: order.gift } : {}),
      },
      {
        onSuccess: (answer) => {
          const url = paymentPageUrl(answer);
          if (!url) {
            // Never navigate to "/undefined": say so, and let the shopper try again (the
            // same checkout id, so the server answers for the same checkout).
            console.warn('The payment-link call answered without a usable URL:', answer);
            setError(`${CHECKOUT_MESSAGES.startFailed} ${CHECKOUT_TEXTS.noPaymentPage}`);
            toast.error(CHECKOUT_MESSAGES.startFailedToast);
            return;
          }
          setLeaving(true);
          window.location.assign(url);
        },
        onError: (failure) => {
          console.warn('Could not start the card checkout:', failure);
          setError(withReason(CHECKOUT_MESSAGES.startFailed, failure));
          toast.error(CHECKOUT_MESSAGES.startFailedToast);
          if (isRefusal(failure)) {
            // Nothing was opened (or that checkout is closed): the next try is a new attempt.
            attempt.current = null;
            void refreshQuote();
          }
        },
      },
    );
  };

  return {
    place,
    error,
    setError,
    busy: cancelOpen.isPending || walletOrder.isPending || paymentLink.isPending || leaving || walletOrder.isSuccess,
  };
}
