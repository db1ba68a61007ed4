/** An order as the server's order functions return it (spec section 3, Order). */
export interface OrderLine {
  id: string;
  name: string;
  qty: number;
  unitCents: number;
}

export interface OrderTotals {
  subtotalCents: number;
  shippingCents: number;
  taxCents: number;
  walletAppliedCents: number;
  /** What the card was charged, card fee included; 0 for a wallet-only order. */
  chargedCents: number;
}

export interface OrderAddress {
  line1?: string;
  line2?: string;
  city?: string;
  state?: string;
  postal_code?: string;
  country?: string;
}

export interface Order {
  id: string;
  paymentIntentId: string;
  createdAt: string;
  uid: string;
  items: OrderLine[];
  totals: OrderTotals;
  shipping: { name: string; address: OrderAddress };
  contact: { name: string; email: string; phone: string };
  orderFulfilled: boolean;
  orderStatus: string | null;
  /** Order desk (issue 16): refunds so far and the parcel's tracking. */
  refundStatus?: 'partially_refunded' | 'refunded' | null;
  refunded?: { walletCents: number; cardCents: number };
  tracking?: { carrier: string; number: string } | null;
}

/** One page of a keyset-paged order list; `next` goes back as `after`. */
export interface OrdersPage {
  items: Order[];
  next: string | null;
}
