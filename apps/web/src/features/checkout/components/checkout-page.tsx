import { Navigate } from '../../../lib/router.tsx';
import { CHECKOUT_MESSAGES } from '@storefront/domain/pricing.ts';
import { useCart } from '../../../lib/cart.ts';
import { lazyPart } from '../../../lib/lazy-part.tsx';
import { useSession } from '../../../lib/session.ts';
import { LoadingRegion, SkeletonText } from '../../../ui/skeleton.tsx';
import './checkout.css';
import { paths } from '../../../lib/paths.ts';
import { BackToShop } from '../../../ui/back-to-shop.tsx';
import { OpenPaymentNotice } from './open-payment-notice.tsx';

// The form and its checks (zod) load for signed-in shoppers only: a signed-out visitor is
// sent to log in without downloading them.
const CheckoutFormPart = lazyPart(() => import('./checkout-form.tsx').then((m) => m.CheckoutForm), {
  loading: 'Loading checkout…',
  failed: 'Checkout could not be loaded.',
});

/**
 * Checkout (spec sections 2, 4 and 5): signed-in shoppers only; contact and shipping
 * forms, the server's order summary, the wallet toggle and Place order.
 */
export function CheckoutPage() {
  const session = useSession();
  const cart = useCart();

  if (session.isLoading) {
    return (
      <section className="page checkout-page">
        <h1>Checkout</h1>
        <LoadingRegion label="Loading checkout…">
          <SkeletonText lines={6} />
        </LoadingRegion>
      </section>
    );
  }
  if (!session.user) return <Navigate to={paths.login} state={{ from: paths.checkout }} replace />;

  return (
    <section className="page checkout-page">
      <h1>Checkout</h1>
      <OpenPaymentNotice />
      {cart.lines.length === 0 ? (
        <div className="checkout-empty">
          <p>{CHECKOUT_MESSAGES.emptyCart}</p>
          <BackToShop />
        </div>
      ) : (
        <CheckoutFormPart.Part user={session.user} lines={cart.lines} />
      )}
    </section>
  );
}
