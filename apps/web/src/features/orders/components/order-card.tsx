import { formatOrderDate, OrderLines, OrderStatusBadge, OrderTotalsList, PostalAddress, TrackingInfo } from '../../../ui/order-details/order-details.tsx';
import type { Order } from '../../../ui/order-details/order-types.ts';

/** One of the buyer's orders: when, its status, what, how much and where it goes. */
export function OrderCard({ order }: { order: Order }) {
  const titleId = `order-${order.id}-title`;
  return (
    <article id={`order-${order.id}`} className="order-card" aria-labelledby={titleId}>
      <header className="order-card__header">
        <div>
          <h2 id={titleId} className="order-card__title">
            {formatOrderDate(order.createdAt)}
          </h2>
          <p className="order-card__number">Order {order.id}</p>
        </div>
        <OrderStatusBadge order={order} />
      </header>
      <div className="order-card__body">
        <OrderLines items={order.items} />
        <OrderTotalsList totals={order.totals} />
        <div className="order-card__ship">
          <p className="order-card__label">Ships to</p>
          <PostalAddress name={order.shipping.name} address={order.shipping.address} />
          {order.tracking ? <TrackingInfo tracking={order.tracking} /> : null}
        </div>
      </div>
    </article>
  );
}
