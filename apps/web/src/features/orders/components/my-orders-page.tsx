import { useEffect } from 'react';
import { Link, Navigate } from 'react-router';
import { CHECKOUT_MESSAGES } from '@storefront/domain/pricing.ts';
import { useSession } from '../../../lib/session.ts';
import { LoadingRegion, Skeleton, SkeletonText } from '../../../ui/skeleton.tsx';
import { useMyOrders } from '../api/list-my-orders.ts';
import { OrderCard } from './order-card.tsx';
import './orders.css';
import { paths } from '../../../lib/paths.ts';

/** My Orders (spec sections 2 and 4): the signed-in buyer's orders, newest first, live. */
export function MyOrdersPage() {
  const session = useSession();
  if (!session.isLoading && !session.user) return <Navigate to={paths.login} state={{ from: paths.myOrders }} replace />;
  return (
    <section className="page orders-page">
      <h1>My Orders</h1>
      {session.user ? <MyOrdersList /> : <OrdersLoading />}
    </section>
  );
}

function MyOrdersList() {
  const orders = useMyOrders();
  const failed = orders.isError;
  const error = orders.error;
  useEffect(() => {
    // Spec section 8: a failed orders listener shows the empty state; the cause is logged.
    if (failed) console.warn('Could not load your orders:', error);
  }, [failed, error]);

  if (orders.isPending) return <OrdersLoading />;
  const items = orders.data?.pages.flatMap((page) => page.items) ?? [];
  if (items.length === 0) {
    return (
      <div className="orders-empty">
        <p>{CHECKOUT_MESSAGES.noOrders}</p>
        <Link to={paths.shop} className="button">
          Start Shopping
        </Link>
      </div>
    );
  }
  return (
    <>
      <ul className="orders-list" aria-label="Your orders">
        {items.map((order) => (
          <li key={order.id}>
            <OrderCard order={order} />
          </li>
        ))}
      </ul>
      {orders.isFetchNextPageError ? (
        <p role="alert" className="orders-more-error">
          Could not load more orders. Please try again.
        </p>
      ) : null}
      {orders.hasNextPage ? (
        <button
          type="button"
          className="button button--secondary orders-more"
          disabled={orders.isFetchingNextPage}
          aria-busy={orders.isFetchingNextPage || undefined}
          onClick={() => void orders.fetchNextPage()}
        >
          {orders.isFetchingNextPage ? 'Loading…' : 'Load more'}
        </button>
      ) : null}
    </>
  );
}

function OrdersLoading() {
  return (
    <LoadingRegion label="Loading your orders…">
      <div className="orders-list">
        {[0, 1, 2].map((index) => (
          <div key={index} className="order-card">
            <Skeleton width="40%" height="1.5rem" />
            <SkeletonText lines={4} />
          </div>
        ))}
      </div>
    </LoadingRegion>
  );
}
