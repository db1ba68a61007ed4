import { useEffect, useState } from 'react';
import { CHECKOUT_MESSAGES } from '@storefront/domain/pricing.ts';
import { FunctionsError } from '@storefront/sdk/callable.ts';
import { toast } from '../../../lib/toast.ts';
import { Modal } from '../../../ui/modal.tsx';
import { formatOrderDate, OrderLines, OrderTotalsList, PostalAddress } from '../../../ui/order-details/order-details.tsx';
import type { Order } from '../../../ui/order-details/order-types.ts';
import { LoadingRegion, Skeleton, SkeletonText } from '../../../ui/skeleton.tsx';
import { useOpenOrders } from '../api/list-open-orders.ts';
import { useMarkOrderFulfilled } from '../api/mark-order-fulfilled.ts';
import './view-orders-tab.css';

const NO_OPEN_ORDERS = 'No open orders.';

/**
 * The release page's View Orders tab (spec sections 2 and 4): unfulfilled orders with
 * their lines, totals, contact and address; Mark Fulfilled after a confirmation.
 */
export function ViewOrdersTab() {
  const orders = useOpenOrders();
  const markFulfilled = useMarkOrderFulfilled();
  const [confirming, setConfirming] = useState<Order | null>(null);
  const [announcement, setAnnouncement] = useState('');
  const failed = orders.isError;
  const error = orders.error;

  useEffect(() => {
    // Spec section 8: a failed orders listener shows the empty state; the cause is logged.
    if (failed) console.warn('Could not load the open orders:', error);
  }, [failed, error]);

  const confirm = () => {
    const order = confirming;
    setConfirming(null);
    if (!order) return;
    markFulfilled.mutate(order.id, {
      onSuccess: () => setAnnouncement(`Order ${order.id} marked fulfilled.`),
      onError: (failure) => {
        console.warn(`Could not mark order ${order.id} fulfilled:`, failure);
        const notFound = failure instanceof FunctionsError && failure.code === 'not-found';
        toast.error(notFound ? CHECKOUT_MESSAGES.orderNotFound : CHECKOUT_MESSAGES.fulfilFailed);
      },
    });
  };

  const pendingId = markFulfilled.isPending ? markFulfilled.variables : undefined;
  const items = orders.data?.pages.flatMap((page) => page.items) ?? [];

  return (
    <div className="view-orders">
      <h2 className="view-orders__title">Open orders</h2>
      <p role="status" className="visually-hidden">
        {announcement}
      </p>
      {orders.isPending ? (
        <LoadingRegion label="Loading open orders…">
          <div className="view-orders__list">
            {[0, 1].map((index) => (
              <div key={index} className="admin-order">
                <Skeleton width="50%" height="1.4rem" />
                <SkeletonText lines={5} />
              </div>
            ))}
          </div>
        </LoadingRegion>
      ) : items.length === 0 ? (
        <p className="view-orders__empty">{NO_OPEN_ORDERS}</p>
      ) : (
        <ul className="view-orders__list" aria-label="Open orders">
          {items.map((order) => (
            <li key={order.id}>
              <AdminOrder order={order} pending={pendingId === order.id} onMarkFulfilled={() => setConfirming(order)} />
            </li>
          ))}
        </ul>
      )}
      {orders.isFetchNextPageError ? (
        <p role="alert" className="view-orders__error">
          Could not load more orders. Please try again.
        </p>
      ) : null}
      {orders.hasNextPage ? (
        <button
          type="button"
          className="button button--secondary"
          disabled={orders.isFetchingNextPage}
          aria-busy={orders.isFetchingNextPage || undefined}
          onClick={() => void orders.fetchNextPage()}
        >
          {orders.isFetchingNextPage ? 'Loading…' : 'Load more'}
        </button>
      ) : null}
      <Modal open={confirming !== null} onClose={() => setConfirming(null)} title="Mark this order fulfilled?">
        {confirming ? (
          <p className="view-orders__confirm-text">
            Order {confirming.id} for {confirming.contact.name || confirming.shipping.name} will leave this list, and its buyer will
            see it as Shipped.
          </p>
        ) : null}
        <div className="view-orders__confirm-actions">
          <button type="button" className="button" onClick={confirm}>
            Yes, Mark Fulfilled
          </button>
          <button type="button" className="button button--secondary" onClick={() => setConfirming(null)}>
            Cancel
          </button>
        </div>
      </Modal>
    </div>
  );
}

function AdminOrder({ order, pending, onMarkFulfilled }: { order: Order; pending: boolean; onMarkFulfilled: () => void }) {
  const titleId = `admin-order-${order.id}`;
  return (
    <article className="admin-order" aria-labelledby={titleId}>
      <header className="admin-order__header">
        <div>
          <h3 id={titleId} className="admin-order__title">
            Order {order.id}
          </h3>
          <p className="admin-order__date">{formatOrderDate(order.createdAt)}</p>
        </div>
        <button type="button" className="button" disabled={pending} aria-busy={pending || undefined} onClick={onMarkFulfilled}>
          {pending ? 'Marking…' : 'Mark Fulfilled'}
        </button>
      </header>
      <OrderLines items={order.items} />
      <div className="admin-order__grid">
        <OrderTotalsList totals={order.totals} />
        <div>
          <p className="admin-order__label">Contact</p>
          <p className="admin-order__contact">
            <span>{order.contact.name}</span>
            {order.contact.email ? <a href={`mailto:${order.contact.email}`}>{order.contact.email}</a> : null}
            {order.contact.phone ? <span>{order.contact.phone}</span> : null}
          </p>
        </div>
        <div>
          <p className="admin-order__label">Ship to</p>
          <PostalAddress name={order.shipping.name} address={order.shipping.address} />
        </div>
      </div>
    </article>
  );
}
