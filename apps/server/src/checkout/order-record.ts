import type { Contact, Shipping } from '@storefront/domain/pricing-schemas.ts';
import type { Quote } from '@storefront/domain/pricing.ts';
import type { NewOrder, OrderLine } from '../orders/orders.service.ts';
import { withTaxParts } from './cart.ts';
import type { PricedCheckout } from './pricing.step.ts';

/**
 * The order's data, built once (issue 34, the way Saleor prepares an order's data in one
 * place): what a priced cart keeps (its lines with their tax basis, the totals, tax, shipping
 * method, code and buyer) is the same for a card checkout's row and a wallet-only order, and an
 * order is that record plus how it was paid, whether it comes from a wallet-only order or from
 * a paid checkout's row.
 */

/** What a checkout and an order keep of a priced cart (issue 26: tax and shipping beside the totals; decision 060: each line's tax basis). */
export function pricedRecord<L extends { qty: number }>(priced: PricedCheckout, fresh: Quote, items: L[], input: { contact: Contact; shipping?: Shipping | undefined }) {
  return {
    items: withTaxParts(items, fresh.taxParts),
    shippingTaxCents: fresh.taxParts.shippingTaxCents,
    subtotalCents: fresh.subtotalCents,
    shippingCents: fresh.shippingCents,
    taxCents: fresh.taxCents,
    taxJurisdiction: fresh.taxJurisdiction,
    taxIncludedCents: fresh.taxIncludedCents,
    shippingMethod: fresh.shippingMethodName,
    discountCents: fresh.discountCents,
    discountCode: priced.code?.code ?? null,
    taxCalculationId: priced.external?.calculationId ?? null,
    contact: { ...input.contact, phone: input.contact.phone ?? '' },
    shipping: input.shipping ?? {},
  };
}

/** A priced record as an order reads it: a wallet-only order's, or a paid checkout's row. */
export interface OrderBasis {
  items: OrderLine[];
  subtotalCents: number;
  shippingCents: number;
  taxCents: number;
  taxJurisdiction: string;
  taxIncludedCents: number;
  shippingMethod: string | null;
  taxCalculationId: string | null;
  shippingTaxCents: number | null;
  discountCents: number;
  discountCode: string | null;
  contact: NewOrder['contact'];
  shipping: NewOrder['shipping'];
}

/** How the order was paid: the wallet's part and the card's. */
export interface OrderPayment {
  userId: string;
  checkoutId: string;
  paymentIntentId: string;
  walletAppliedCents: number;
  chargedCents: number;
}

export type OrderRecord = NewOrder & Pick<OrderBasis, 'taxJurisdiction' | 'taxIncludedCents' | 'shippingMethod' | 'taxCalculationId' | 'discountCents' | 'discountCode'>;

/** The one insertOrder input: the basis's fields, named one by one (a checkout row has more), and the payment. */
export function orderRecord(basis: OrderBasis, payment: OrderPayment): OrderRecord {
  return {
    userId: payment.userId,
    checkoutId: payment.checkoutId,
    paymentIntentId: payment.paymentIntentId,
    items: basis.items,
    subtotalCents: basis.subtotalCents,
    shippingCents: basis.shippingCents,
    taxCents: basis.taxCents,
    walletAppliedCents: payment.walletAppliedCents,
    chargedCents: payment.chargedCents,
    taxJurisdiction: basis.taxJurisdiction,
    taxIncludedCents: basis.taxIncludedCents,
    shippingMethod: basis.shippingMethod,
    taxCalculationId: basis.taxCalculationId,
    shippingTaxCents: basis.shippingTaxCents,
    discountCents: basis.discountCents,
    discountCode: basis.discountCode,
    contact: basis.contact,
    shipping: basis.shipping,
  };
}
