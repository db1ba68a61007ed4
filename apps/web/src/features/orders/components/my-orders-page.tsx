import { useEffect } from 'react';
import { Link, Navigate } from '../../../lib/router.tsx';
import { CHECKOUT_MESSAGES } from '@storefront/domain/pricing.ts';
import { useSession } from '../../../lib/session.ts';
import { OrderList, OrderListSkeleton } from '../../../ui/order-list/order-list.tsx';
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
      <p className="orders-page__library">
        Music you bought is in <Link to={paths.library}>My music</Link>. Have a download code? <Link to={paths.redeem}>Redeem it</Link>.
      </p>
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
  return <OrderList orders={items} label="Your orders" pages={orders} variant="page" renderOrder={(order) => <OrderCard order={order} />} />;
}

function OrdersLoading() {
  return <OrderListSkeleton label="Loading your orders…" count={3} titleWidth="40%" titleHeight="1.5rem" lines={4} />;
}
