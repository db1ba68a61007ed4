import { formatOrderDate, OrderLines, OrderShipments, OrderStatusBadge, OrderTotalsList, ShipTo } from '../../../ui/order-details/order-details.tsx';
import type { Order } from '../../../ui/order-details/order-types.ts';
import { OrderCardFrame } from '../../../ui/order-list/order-list.tsx';

/** One of the buyer's orders: when, its status, what, how much and where it goes. */
export function OrderCard({ order }: { order: Order }) {
  const titleId = `order-${order.id}-title`;
  return (
    <OrderCardFrame
      id={`order-${order.id}`}
      titleId={titleId}
      heading={
        <>
          <h2 id={titleId} className="order-card__title">
            {formatOrderDate(order.createdAt)}
          </h2>
          <p className="order-card__number">Order {order.id}</p>
        </>
      }
      aside={<OrderStatusBadge order={order} />}
    >
      <div className="order-card__body">
        <OrderLines items={order.items} />
        <OrderTotalsList totals={order.totals} refunded={order.refunded} tax={order.tax} discountCode={order.discountCode} />
        <ShipTo className="order-card__ship" label="Ships to" shipping={order.shipping} items={order.items} tracking={order.shipments?.length ? null : order.tracking} />
        <OrderShipments order={order} />
      </div>
    </OrderCardFrame>
  );
}
