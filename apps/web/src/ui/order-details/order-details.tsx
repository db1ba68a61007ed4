import { trackingUrl } from '@storefront/domain/order-desk.ts';
import { formatUsd } from '@storefront/domain/catalog.ts';
import { taxLineLabel } from '@storefront/domain/shipping-tax.ts';
import { Badge } from '../badge.tsx';
import { PreorderNote } from '../preorder-note.tsx';
import { orderBadge } from './order-status.ts';
import { nothingShipsText, ORDER_TEXTS } from './order-texts.ts';
import type { Order, OrderAddress, OrderLine, OrderTax, OrderTotals } from './order-types.ts';
import './order-details.css';

// Built on first use: the checkout page shows no dates, and a first Intl formatter is slow on phones.
let dateFormat: Intl.DateTimeFormat | undefined;

export function formatOrderDate(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '—';
  dateFormat ??= new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeStyle: 'short' });
  return dateFormat.format(date);
}

export function OrderStatusBadge({ order }: { order: Pick<Order, 'orderFulfilled' | 'orderStatus' | 'refundStatus'> & { refundPending?: boolean | undefined } }) {
  const { label, tone } = orderBadge(order);
  return <Badge tone={tone}>{label}</Badge>;
}

/** A card dispute on the order (decision 075): open, won, or lost (then counted as a return). */
export function DisputeBadge({ dispute }: { dispute: Order['dispute'] }) {
  if (!dispute) return null;
  const amount = formatUsd(dispute.amountCents);
  if (dispute.status === 'lost') return <Badge tone="danger">Dispute lost: {amount}</Badge>;
  if (dispute.status === 'won') return <Badge tone="success">Dispute won</Badge>;
  return <Badge tone="pending">Disputed: {amount}</Badge>;
}

export function OrderLines({ items }: { items: OrderLine[] }) {
  return (
    <ul className="order-lines" aria-label="Items">
      {items.map((item, index) => (
        <li key={`${item.id}-${index}`} className="order-lines__line">
          <span className="order-lines__name">
            {item.name} <span className="order-lines__qty">× {item.qty}</span>
            {item.shipsOn ? (
              <>
                {' '}
                <PreorderNote date={item.shipsOn} />
              </>
            ) : null}
            {item.digital ? <span className="order-lines__kind">{ORDER_TEXTS.digitalLine}</span> : null}
            {item.components && item.components.length > 0 ? (
              // A bundle's parts (issue 27, decision 055): what goes in the parcel.
              <span className="order-lines__parts" data-testid="bundle-parts">
                Includes: {item.components.map((part) => (part.qty > 1 ? `${part.qty} × ${part.name}` : part.name)).join(', ')}
              </span>
            ) : null}
          </span>
          <span className="order-lines__amount">{formatUsd(item.unitCents * item.qty)}</span>
        </li>
      ))}
    </ul>
  );
}

/**
 * The money of an order, as it was charged: wallet first, any rest (plus the card fee) to the card;
 * and what was given back so far, to each (decision 050: as the refund email says it).
 * The tax line names its jurisdiction; tax inside VAT-inclusive prices is shown, not added (issue 26).
 * A discount code's part (issue 27) lowers the subtotal before shipping and tax.
 */
export function OrderTotalsList({
  totals,
  refunded,
  tax,
  discountCode,
}: {
  totals: OrderTotals;
  refunded?: { walletCents: number; cardCents: number };
  tax?: OrderTax | undefined;
  discountCode?: string | null | undefined;
}) {
  const discount = totals.discountCents ?? 0;
  const total = totals.subtotalCents - discount + totals.shippingCents + totals.taxCents;
  const cardFee = totals.chargedCents > 0 ? totals.chargedCents - (total - totals.walletAppliedCents) : 0;
  return (
    <dl className="order-totals">
      <Row label="Subtotal" cents={totals.subtotalCents} />
      {discount > 0 ? <Row label={discountCode ? `Discount (${discountCode})` : 'Discount'} cents={-discount} /> : null}
      <Row label="Shipping" cents={totals.shippingCents} />
      {tax && tax.includedCents > 0 ? (
        <Row label={taxLineLabel(tax.jurisdiction, true)} cents={tax.includedCents} />
      ) : (
        <Row label={taxLineLabel(tax?.jurisdiction)} cents={totals.taxCents} />
      )}
      <Row label="Total" cents={total} strong />
      {totals.walletAppliedCents > 0 ? <Row label="Wallet applied" cents={-totals.walletAppliedCents} /> : null}
      {cardFee > 0 ? <Row label="Card processing fee" cents={cardFee} /> : null}
      {totals.chargedCents > 0 ? <Row label="Charged to card" cents={totals.chargedCents} strong /> : null}
      {refunded && refunded.cardCents > 0 ? <Row label="Refunded to card" cents={refunded.cardCents} /> : null}
      {refunded && refunded.walletCents > 0 ? <Row label="Refunded to wallet" cents={refunded.walletCents} /> : null}
    </dl>
  );
}

function Row({ label, cents, strong = false }: { label: string; cents: number; strong?: boolean }) {
  return (
    <div className={strong ? 'order-totals__row order-totals__row--strong' : 'order-totals__row'}>
      <dt>{label}</dt>
      <dd>{formatUsd(cents)}</dd>
    </div>
  );
}

/** A postal address, one line per part, empty parts left out. */
export function PostalAddress({ name, address, items = [] }: { name?: string; address: OrderAddress; items?: readonly OrderLine[] }) {
  const cityLine = [address.city, address.state, address.postal_code].filter(Boolean).join(', ');
  const lines = [name, address.line1, address.line2, cityLine, address.country].filter((line): line is string => Boolean(line));
  // An all-digital order has no address (issue 28); its lines say what comes instead (issue 39).
  if (lines.length === 0) return <p className="order-address order-address--none">{nothingShipsText(items)}</p>;
  return (
    <address className="order-address">
      {lines.map((line, index) => (
        <span key={index} className="order-address__line">
          {line}
        </span>
      ))}
    </address>
  );
}

/** The carrier and tracking number, linked to the carrier's tracking page when we know it. */
export function TrackingInfo({ tracking }: { tracking: { carrier: string; number: string } }) {
  const url = trackingUrl(tracking.carrier, tracking.number);
  return (
    <p className="order-tracking">
      <span>{tracking.carrier} tracking: </span>
      {url ? (
        <a href={url} target="_blank" rel="noreferrer noopener">
          {tracking.number}
        </a>
      ) : (
        <span>{tracking.number}</span>
      )}
    </p>
  );
}

/** Where an order goes, under `label`, and its tracking once it has shipped (My Orders, View Orders). */
export function ShipTo({
  label,
  shipping,
  tracking,
  className,
  items,
}: {
  label: string;
  shipping: { name?: string; address: OrderAddress };
  /** The order's lines: an order with no parcel says what it delivers instead. */
  items?: readonly OrderLine[];
  tracking?: { carrier: string; number: string } | null;
  className?: string;
}) {
  return (
    <div className={className}>
      <p className="order-card__label">{label}</p>
      <PostalAddress name={shipping.name} address={shipping.address} items={items} />
      {tracking ? <TrackingInfo tracking={tracking} /> : null}
    </div>
  );
}

/**
 * An order shipped in parts (decision 054): each parcel with its lines and tracking, and what is
 * still to ship. Nothing for an order shipped (or to be shipped) in one parcel.
 */
export function OrderShipments({ order }: { order: Pick<Order, 'items' | 'shipments'> }) {
  const shipments = order.shipments ?? [];
  if (shipments.length === 0) return null;
  const waiting = order.items.filter((item) => !item.shipmentId);
  return (
    <div className="order-shipments">
      <p className="order-card__label">Shipped in parts</p>
      <ol className="order-shipments__list">
        {shipments.map((shipment, index) => (
          <li key={shipment.id} className="order-shipments__part">
            <p>
              Parcel {index + 1}, shipped {formatOrderDate(shipment.shippedAt)}:{' '}
              {order.items
                .filter((item) => item.shipmentId === shipment.id)
                .map((item) => `${item.name} × ${item.qty}`)
                .join(', ')}
            </p>
            {shipment.carrier && shipment.trackingNumber ? <TrackingInfo tracking={{ carrier: shipment.carrier, number: shipment.trackingNumber }} /> : null}
          </li>
        ))}
      </ol>
      {waiting.length > 0 ? <p className="order-shipments__waiting">Still to ship: {waiting.map((item) => `${item.name} × ${item.qty}`).join(', ')}</p> : null}
    </div>
  );
}
