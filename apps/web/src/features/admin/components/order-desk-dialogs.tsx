import { useState } from 'react';
import { formatUsd, usdToCents } from '@storefront/domain/catalog.ts';
import { CARRIERS, type Carrier } from '@storefront/domain/order-desk.ts';
import { planRefund, REFUND_MESSAGES, refundSplitReason, RefundRuleError, type RefundableOrder, type RefundPlan, type RefundRequest } from '@storefront/domain/refunds.ts';
import { FunctionsError } from '@storefront/sdk/callable.ts';
import { toast } from '../../../lib/toast.ts';
import { Modal } from '../../../ui/modal.tsx';
import {
  DisputeBadge,
  formatOrderDate,
  OrderLines,
  OrderShipments,
  OrderStatusBadge,
  OrderTotalsList,
  PostalAddress,
  TrackingInfo,
} from '../../../ui/order-details/order-details.tsx';
import { useOrderDetail } from '../api/get-order.ts';
import type { DeskOrder } from '../api/list-orders.ts';
import { useRefundOrder } from '../api/refund-order.ts';
import { useRetryRefund } from '../api/retry-refund.ts';

export interface Tracking {
  /** '' while no carrier is chosen. */
  carrier: Carrier | '';
  trackingNumber: string;
}

/** Mark Fulfilled's optional carrier and tracking number (issue 16.2). */
/**
 * A desk dialog's buttons: the action (busy while `pending`, its label then `pendingLabel`) and
 * Cancel.
 */
export function DialogActions({
  label,
  pendingLabel = label,
  pending = false,
  onConfirm,
  onCancel,
}: {
  label: string;
  pendingLabel?: string;
  pending?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  return (
    <div className="view-orders__confirm-actions">
      <button type="button" className="button" disabled={pending} aria-busy={pending || undefined} onClick={onConfirm}>
        {pending ? pendingLabel : label}
      </button>
      <button type="button" className="button button--secondary" onClick={onCancel}>
        Cancel
      </button>
    </div>
  );
}

export function FulfilFields({ value, onChange, idPrefix = 'fulfil' }: { value: Tracking; onChange: (value: Tracking) => void; idPrefix?: string }) {
  return (
    <div className="view-orders__tracking">
      <label htmlFor={`${idPrefix}-carrier`}>Carrier (optional)</label>
      <select
        id={`${idPrefix}-carrier`}
        value={value.carrier}
        onChange={(event) => onChange({ ...value, carrier: CARRIERS.find((carrier) => carrier === event.target.value) ?? '' })}
      >
        <option value="">No tracking</option>
        {CARRIERS.map((carrier) => (
          <option key={carrier} value={carrier}>
            {carrier}
          </option>
        ))}
      </select>
      <label htmlFor={`${idPrefix}-tracking`}>Tracking number (optional)</label>
      <input
        id={`${idPrefix}-tracking`}
        value={value.trackingNumber}
        maxLength={40}
        autoComplete="off"
        onChange={(event) => onChange({ ...value, trackingNumber: event.target.value })}
      />
    </div>
  );
}

const HISTORY_LABELS: Record<string, string> = {
  created: 'Created',
  paid: 'Paid',
  fulfilled: 'Fulfilled',
  'refund-requested': 'Refund requested',
  refunded: 'Refunded',
  'refund-failed': 'Refund failed',
  'provider-refund': 'Card refund reported by the payment provider',
  'refund-gave-up': 'Card refund failed: no answer from the payment provider',
  'refund-retried': 'Card refund retried',
  'shipped-part': 'Part shipped',
  dispute: 'Card dispute (lost disputes count as returns)',
};

type RefundEntry = NonNullable<ReturnType<typeof useOrderDetail>['data']>['refunds'][number];

/** A refund's state in words (decision 034): done, failed, or being retried in the background. */
function refundState(refund: RefundEntry): string {
  if (refund.status === 'succeeded') return 'Refunded';
  if (refund.status === 'failed') return `Failed: ${refund.failure ?? 'the card refund did not go through.'}`;
  if (refund.retry.gaveUp) return `Failed: ${refund.failure ?? ''}`;
  if (refund.retry.nextAttemptAt)
    return `Pending: the payment provider did not answer (attempt ${refund.retry.attempts}); trying again at ${formatOrderDate(refund.retry.nextAttemptAt)}.`;
  return 'Pending: waiting for the payment provider.';
}

/** The order's refunds, each with its state; a card refund whose retries ran out can be retried. */
function RefundList({ orderId, refunds }: { orderId: string; refunds: RefundEntry[] }) {
  const retry = useRetryRefund();
  if (refunds.length === 0) return null;
  return (
    <>
      <h3 className="order-detail__heading">Refunds</h3>
      <ul className="order-detail__refunds" aria-label="Refunds">
        {refunds.map((refund) => (
          <li key={refund.id} data-refund-state={refund.retry.gaveUp ? 'gave-up' : refund.status}>
            {formatUsd(refund.cardCents)} to the card, {formatUsd(refund.walletCents)} to the wallet — {refundState(refund)}
            {refund.status === 'pending' && refund.retry.gaveUp ? (
              <button
                type="button"
                className="button button--secondary"
                disabled={retry.isPending}
                onClick={() =>
                  retry.mutate(
                    { orderId, refundId: refund.id },
                    {
                      onSuccess: () => toast.success(REFUND_MESSAGES.issued),
                      onError: (failure) =>
                        toast.error(failure instanceof FunctionsError && failure.code !== 'internal' ? failure.message : 'Could not retry this refund. Please try again.'),
                    },
                  )
                }
              >
                {retry.isPending ? 'Retrying…' : 'Retry refund'}
              </button>
            ) : null}
          </li>
        ))}
      </ul>
    </>
  );
}

/** The order's detail: lines, totals per part, contact, address, payment reference, refunds and history. */
export function OrderDetailDialog({ orderId, onClose }: { orderId: string | null; onClose: () => void }) {
  const detail = useOrderDetail(orderId);
  const order = detail.data?.order;
  return (
    <Modal open={orderId !== null} onClose={onClose} title={`Order ${orderId ?? ''}`}>
      {detail.isPending ? <p>Loading…</p> : null}
      {detail.isError ? <p role="alert">Could not load this order. Please try again.</p> : null}
      {order ? (
        <div className="order-detail">
          <p>
            <OrderStatusBadge order={order} /> <DisputeBadge dispute={order.dispute} />
          </p>
          <OrderLines items={order.items} />
          {/* The same money lines as the buyer's (issue 39 item 4: the discount, the card fee, refunds). */}
          <OrderTotalsList totals={order.totals} refunded={order.refunded} tax={order.tax} discountCode={order.discountCode} />
          <dl className="order-detail__payment">
            <dt>Payment reference</dt>
            <dd>{order.paymentIntentId}</dd>
          </dl>
          <p className="admin-order__label">Contact</p>
          <p>
            {order.contact.name} · {order.contact.email}
            {order.contact.phone ? ` · ${order.contact.phone}` : ''}
          </p>
          <p className="admin-order__label">Ship to</p>
          <PostalAddress name={order.shipping.name} address={order.shipping.address} items={order.items} />
          {/* Every parcel's tracking, not only the last (issue 39). */}
          <OrderShipments order={order} />
          {order.tracking && !order.shipments?.some((shipment) => shipment.trackingNumber === order.tracking!.number) ? <TrackingInfo tracking={order.tracking} /> : null}
          <RefundList orderId={order.id} refunds={detail.data!.refunds} />
          <h3 className="order-detail__heading">History</h3>
          <ol className="order-detail__history" aria-label="History">
            {detail.data!.history.map((entry, index) => (
              <li key={index}>
                {HISTORY_LABELS[entry.kind] ?? entry.kind} — {formatOrderDate(entry.at)}
                {entry.by ? ` — by ${entry.by}` : ''}
              </li>
            ))}
          </ol>
        </div>
      ) : null}
      <div className="view-orders__confirm-actions">
        <button type="button" className="button button--secondary" onClick={onClose}>
          Close
        </button>
      </div>
    </Modal>
  );
}

const newKey = () => (globalThis.crypto?.randomUUID?.() ?? `${Date.now()}-${Math.random().toString(36).slice(2)}`).replace(/[^\w-]/g, '');

type RefundMode = 'full' | 'lines' | 'shipping' | 'amount';

/** What the dialog asks the server for; the plan previewed is the domain's, as the server plans it. */
function refundRequest(mode: RefundMode, quantities: Record<number, number>, withShipping: boolean, amount: string): RefundRequest | string {
  if (mode === 'full') return {};
  if (mode === 'shipping') return { shipping: true };
  if (mode === 'amount') {
    const cents = usdToCents(amount);
    return cents === undefined || cents <= 0 ? REFUND_MESSAGES.amountPositive : { amountCents: cents };
  }
  const lines = Object.entries(quantities)
    .filter(([, quantity]) => quantity > 0)
    .map(([lineId, quantity]) => ({ lineId: Number(lineId), quantity }));
  if (lines.length === 0 && !withShipping) return 'Choose at least one item to refund.';
  return { ...(lines.length > 0 ? { lines } : {}), ...(withShipping ? { shipping: true } : {}) };
}

/** The split before confirming (decision 050), or why this refund cannot be made. */
function previewOf(refundable: RefundableOrder | undefined, request: RefundRequest | string): { plan: RefundPlan; reason: string } | { problem: string } | null {
  if (typeof request === 'string') return { problem: request };
  if (!refundable) return null;
  try {
    const plan = planRefund(refundable, request);
    return { plan, reason: refundSplitReason(refundable, plan, request) };
  } catch (error) {
    if (error instanceof RefundRuleError) return { problem: error.message };
    throw error;
  }
}

/**
 * Refund in full, by line, the shipping or an amount (issue 16.4, issue 29 item 2). Before the
 * admin confirms, it shows how the refund splits between card and wallet and why; the server
 * plans it again from the order's rows. One idempotency key per opening: a double click refunds once.
 */
export function RefundDialog({ order, onClose, onRefunded }: { order: DeskOrder | null; onClose: () => void; onRefunded: (text: string) => void }) {
  const refund = useRefundOrder();
  const detail = useOrderDetail(order?.id ?? null);
  const [mode, setMode] = useState<RefundMode>('full');
  const [quantities, setQuantities] = useState<Record<number, number>>({});
  const [withShipping, setWithShipping] = useState(false);
  const [amount, setAmount] = useState('');
  // Mounted afresh for each order it opens with (the parent keys it), so each opening has its own key.
  const [key] = useState(newKey);
  const refundable = detail.data?.refundable;
  const request = refundRequest(mode, quantities, withShipping, amount);
  const preview = previewOf(refundable, request);

  const submit = () => {
    if (!order) return;
    if (typeof request === 'string') return toast.error(request);
    if (preview && 'problem' in preview) return toast.error(preview.problem);
    refund.mutate(
      { orderId: order.id, idempotencyKey: key, ...request },
      {
        onSuccess: ({ refund: done }) => {
          const text = `${REFUND_MESSAGES.issued} ${formatUsd(done.cardCents)} to the card, ${formatUsd(done.walletCents)} to the wallet.`;
          toast.success(text);
          onRefunded(text);
          onClose();
        },
        onError: (failure) => {
          console.warn(`Could not refund order ${order.id}:`, failure);
          toast.error(failure instanceof FunctionsError && failure.code !== 'internal' ? failure.message : 'Could not refund this order. Please try again.');
        },
      },
    );
  };

  const left = refundable ? refundable.walletPaidCents + refundable.cardPaidCents - refundable.refundedWalletCents - refundable.refundedCardCents : null;
  return (
    <Modal open={order !== null} onClose={onClose} title={`Refund order ${order?.id ?? ''}`}>
      {order ? (
        <div className="refund-dialog">
          {left !== null ? <p>Left to refund: {formatUsd(left)}</p> : null}
          <fieldset>
            <legend>What to refund</legend>
            <label>
              <input type="radio" name="refund-mode" checked={mode === 'full'} onChange={() => setMode('full')} /> Full refund (everything not refunded yet)
            </label>
            <label>
              <input type="radio" name="refund-mode" checked={mode === 'lines'} onChange={() => setMode('lines')} /> By line
            </label>
            <label>
              <input type="radio" name="refund-mode" checked={mode === 'shipping'} onChange={() => setMode('shipping')} /> Shipping only
            </label>
            <label>
              <input type="radio" name="refund-mode" checked={mode === 'amount'} onChange={() => setMode('amount')} /> An amount
            </label>
          </fieldset>
          {mode === 'lines' ? (
            <ul className="refund-dialog__lines">
              {order.lines.map((line) => (
                <li key={line.lineId}>
                  <label htmlFor={`refund-line-${line.lineId}`}>
                    Quantity of {line.name} to refund ({formatUsd(line.unitCents)} each, {line.qty} ordered)
                  </label>
                  <input
                    id={`refund-line-${line.lineId}`}
                    type="number"
                    min={0}
                    max={line.qty}
                    value={quantities[line.lineId] ?? 0}
                    onChange={(event) => setQuantities({ ...quantities, [line.lineId]: Math.max(0, Math.min(line.qty, Math.floor(Number(event.target.value) || 0))) })}
                  />
                </li>
              ))}
              <li>
                <label>
                  <input type="checkbox" checked={withShipping} onChange={(event) => setWithShipping(event.target.checked)} /> And the shipping
                </label>
              </li>
            </ul>
          ) : null}
          {mode === 'amount' ? (
            <p className="refund-dialog__amount">
              <label htmlFor="refund-amount">Amount to refund (USD)</label>
              <input id="refund-amount" inputMode="decimal" autoComplete="off" value={amount} placeholder="0.00" onChange={(event) => setAmount(event.target.value)} />
            </p>
          ) : null}
          <div className="refund-dialog__preview" aria-live="polite" data-testid="refund-preview">
            {detail.isPending ? <p>Working out the split…</p> : null}
            {detail.isError ? <p role="alert">Could not load what is left to refund. The server still plans the refund.</p> : null}
            {preview && 'plan' in preview ? (
              <>
                <p className="refund-dialog__split">
                  <strong>{formatUsd(preview.plan.cardCents)}</strong> to the card, <strong>{formatUsd(preview.plan.walletCents)}</strong> to the wallet
                  {preview.plan.shippingCents > 0 ? ` (shipping and its tax: ${formatUsd(preview.plan.shippingCents)})` : ''}
                </p>
                <p className="refund-dialog__reason">{preview.reason}</p>
              </>
            ) : null}
            {preview && 'problem' in preview && (mode !== 'amount' || amount !== '') ? <p className="refund-dialog__problem">{preview.problem}</p> : null}
          </div>
          <p>The card part goes back to the card, the wallet part to the buyer’s wallet; the buyer gets an email.</p>
        </div>
      ) : null}
      <DialogActions label="Issue refund" pendingLabel="Refunding…" pending={refund.isPending} onConfirm={submit} onCancel={onClose} />
    </Modal>
  );
}
