import { useEffect } from 'react';
import { Link, useSearchParams } from '../../../lib/router.tsx';
import { cartStore } from '../../../lib/cart.ts';
import { useSession } from '../../../lib/session.ts';
import { OrderLines, OrderStatusBadge, OrderTotalsList, PostalAddress } from '../../../ui/order-details/order-details.tsx';
import { LoadingRegion, SkeletonText } from '../../../ui/skeleton.tsx';
import { useMyOrder } from '../api/get-my-order.ts';
import { CHECKOUT_TEXTS } from '../messages.ts';
import './checkout.css';
import { paths } from '../../../lib/paths.ts';
import { BackToShop } from '../../../ui/back-to-shop.tsx';

/**
 * Order confirmation (spec section 2): where the payment provider (or a wallet order)
 * returns, with `payment_intent` and `redirect_status` in the query string. A payment
 * that went through empties the cart; one that did not says so and keeps the cart.
 */
export function OrderConfirmationPage() {
  const [searchParams] = useSearchParams();
  const paymentIntent = searchParams.get('payment_intent') ?? '';
  const status = searchParams.get('redirect_status') ?? '';
  const { isSignedIn } = useSession();
  const paid = status === 'succeeded' || status === 'processing';

  useEffect(() => {
    if (paid) cartStore.clear();
  }, [paid]);

  return (
    <section className="page">
      <h1>Order confirmation</h1>
      <div className="confirmation">
        <Outcome status={status} hasPayment={Boolean(paymentIntent || status)} />
        {paymentIntent || status ? (
          <dl className="confirmation__facts">
            <dt>Payment</dt>
            <dd>{paymentIntent || '—'}</dd>
            <dt>Status</dt>
            <dd>{status || '—'}</dd>
          </dl>
        ) : null}
        {paid && paymentIntent ? isSignedIn ? <OrderDetails paymentIntent={paymentIntent} /> : isSignedIn === false ? <p>{CHECKOUT_TEXTS.signInToSee}</p> : null : null}
        <div className="confirmation__actions">
          {status && !paid ? (
            <Link to={paths.checkout} className="button">
              Back to checkout
            </Link>
          ) : null}
          <Link to={paths.myOrders} className={status && !paid ? 'button button--secondary' : 'button'}>
            View My Orders
          </Link>
          <BackToShop secondary />
        </div>
      </div>
    </section>
  );
}

function Outcome({ status, hasPayment }: { status: string; hasPayment: boolean }) {
  if (!hasPayment) return <p>{CHECKOUT_TEXTS.nothingToShow}</p>;
  if (status === 'succeeded') {
    return (
      <p role="status" className="notice checkout-notice notice--success">
        {CHECKOUT_TEXTS.thanks}
      </p>
    );
  }
  if (status === 'processing') {
    return (
      <p role="status" className="notice checkout-notice notice--info">
        {CHECKOUT_TEXTS.processing}
      </p>
    );
  }
  return (
    <p role="alert" className="notice checkout-notice notice--error">
      {CHECKOUT_TEXTS.failed}
    </p>
  );
}

/** The order this payment made; until the payment event has been applied, a note that it is coming. */
function OrderDetails({ paymentIntent }: { paymentIntent: string }) {
  const query = useMyOrder(paymentIntent, true);
  const failed = query.isError;
  const error = query.error;
  useEffect(() => {
    if (failed) console.warn('Could not load the order for this payment:', error);
  }, [failed, error]);

  if (query.isPending) {
    return (
      <LoadingRegion label="Loading your order…">
        <SkeletonText lines={4} />
      </LoadingRegion>
    );
  }
  const order = query.data;
  if (!order) {
    return (
      <p role="status" className="notice checkout-notice notice--info">
        {CHECKOUT_TEXTS.confirming}
      </p>
    );
  }
  return (
    <section className="confirmation__order" aria-labelledby="confirmation-order-title">
      <div className="confirmation__order-header">
        <h2 id="confirmation-order-title">Your order</h2> <OrderStatusBadge order={order} />
      </div>
      <OrderLines items={order.items} />
      <OrderTotalsList totals={order.totals} tax={order.tax} discountCode={order.discountCode} />
      <div>
        <p className="confirmation__label">Ships to</p>
        <PostalAddress name={order.shipping.name} address={order.shipping.address} items={order.items} />
      </div>
      {/* Music bought (issue 39): the library is where it is, one press away. */}
      {order.items.some((item) => item.digital && !item.giftCard) ? (
        <p className="confirmation__library">
          {CHECKOUT_TEXTS.musicReady} <Link to={paths.library}>{CHECKOUT_TEXTS.openLibrary}</Link>
        </p>
      ) : null}
    </section>
  );
}
