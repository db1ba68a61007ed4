import { formatUsd } from '@storefront/domain/catalog.ts';
import { CHECKOUT_MESSAGES } from '@storefront/domain/pricing.ts';
import { errorSentence } from '../../../lib/error-message.ts';
import { toast } from '../../../lib/toast.ts';
import { OrderLines } from '../../../ui/order-details/order-details.tsx';
import { useCancelOpenPayment, useOpenPayment } from '../api/open-payment.ts';

const time = (iso: string) => new Date(iso).toLocaleTimeString([], { hour: 'numeric', minute: '2-digit' });

/**
 * A shopper who left the payment page any way but "Back to checkout" comes back to an open
 * payment (decision 044): shown here with the wallet credit it holds, to resume or cancel.
 * Cancelling gives the credit and the units back at once; starting a new payment replaces it.
 */
export function OpenPaymentNotice() {
  const open = useOpenPayment();
  const cancel = useCancelOpenPayment();
  const payment = open.data?.checkout;
  if (!payment) return null;
  const resume = () => window.location.assign(payment.url);
  const onCancel = () =>
    cancel.mutate(payment.checkoutId, {
      onSuccess: () => toast.success(CHECKOUT_MESSAGES.openPaymentCancelled),
      onError: (error) => toast.error(errorSentence(error)),
    });
  return (
    <section className="open-payment" aria-labelledby="open-payment-title">
      <h2 id="open-payment-title">{CHECKOUT_MESSAGES.openPayment}</h2>
      <OrderLines items={payment.items} />
      <dl className="open-payment__totals">
        <div>
          <dt>Wallet credit held</dt>
          <dd>{formatUsd(payment.walletHeldCents)}</dd>
        </div>
        <div>
          <dt>Card</dt>
          <dd>{formatUsd(payment.chargeCents)}</dd>
        </div>
      </dl>
      <p className="open-payment__until">Your items and wallet credit are held until {time(payment.expiresAt)}. Starting a new payment cancels this one.</p>
      <div className="open-payment__actions">
        <button type="button" className="button" onClick={resume}>
          Resume payment
        </button>
        <button type="button" className="button button--secondary" onClick={onCancel} disabled={cancel.isPending} aria-busy={cancel.isPending}>
          {cancel.isPending ? 'Cancelling…' : 'Cancel payment'}
        </button>
      </div>
    </section>
  );
}
