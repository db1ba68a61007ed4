import { formatUsd } from '@storefront/domain/catalog.ts';
import { shipsWhen } from '@storefront/domain/preorders.ts';
import { OrderLines, OrderTotalsList } from '../../../ui/order-details/order-details.tsx';
import type { CheckoutQuote } from '../api/quote-checkout.ts';
import { CHECKOUT_TEXTS } from '../messages.ts';

/**
 * The server's quote: lines at database prices, shipping, tax, the wallet part and,
 * when a card pays the rest, its fee and the amount charged (spec section 9).
 */
export function OrderSummary({ quote }: { quote: CheckoutQuote }) {
  return (
    <div className="checkout-summary__body">
      <OrderLines items={quote.lines} />
      {/* A preorder in the cart (decision 054): when this one order ships, said plainly. */}
      {shipsWhen(quote.lines) ? <p className="checkout-summary__ships">{shipsWhen(quote.lines)}</p> : null}
      <OrderTotalsList
        totals={{
          subtotalCents: quote.subtotalCents,
          discountCents: quote.discountCents,
          shippingCents: quote.shippingCents,
          taxCents: quote.taxCents,
          walletAppliedCents: quote.walletAppliedCents,
          chargedCents: quote.chargeCents,
        }}
        tax={{ jurisdiction: quote.taxJurisdiction, includedCents: quote.taxIncludedCents, shippingMethod: quote.shippingMethodName }}
        discountCode={quote.discountCode}
      />
      <p className="checkout-summary__due">{quote.amountDueCents === 0 ? CHECKOUT_TEXTS.walletCovers : CHECKOUT_TEXTS.cardNext(formatUsd(quote.chargeCents))}</p>
    </div>
  );
}
