import { useEffect, useState, type FormEvent } from 'react';
import { PREORDER_MESSAGES } from '@storefront/domain/preorders.ts';
import { DESK_MESSAGES, ORDER_FILTER_LABELS, ORDER_FILTERS, type OrderFilter } from '@storefront/domain/order-desk.ts';
import { CHECKOUT_MESSAGES } from '@storefront/domain/pricing.ts';
import { FunctionsError } from '@storefront/sdk/callable.ts';
import { paths } from '../../../lib/paths.ts';
import { useLocation, useNavigate, useParams } from '../../../lib/router.tsx';
import { toast } from '../../../lib/toast.ts';
import { Modal } from '../../../ui/modal.tsx';
import { ReturnCodeUse } from './return-code-use.tsx';
import { DisputeBadge, formatOrderDate, OrderLines, OrderShipments, OrderStatusBadge, OrderTotalsList, ShipTo } from '../../../ui/order-details/order-details.tsx';
import { OrderCardFrame, OrderList, OrderListSkeleton } from '../../../ui/order-list/order-list.tsx';
import { useDeskOrders, type DeskOrder } from '../api/list-orders.ts';
import { useMarkOrderFulfilled } from '../api/mark-order-fulfilled.ts';
import { useMarkOrdersFulfilled } from '../api/mark-orders-fulfilled.ts';
import { DialogActions, FulfilFields, OrderDetailDialog, RefundDialog, type Tracking } from './order-desk-dialogs.tsx';
import { ConfirmEarly, ShipPartDialog, waitingDates } from './ship-part-dialog.tsx';
import './view-orders-tab.css';

const NO_OPEN_ORDERS = 'No open orders.';

/**
 * The release page's View Orders tab (spec sections 2 and 4), grown into the order desk
 * (issue 16): Unfulfilled (the spec's open orders, the default), Shipped, Refunded or All,
 * a search, the packing list, bulk Mark Fulfilled with tracking, details and refunds.
 */
export function ViewOrdersTab() {
  const [status, setStatus] = useState<OrderFilter>('unfulfilled');
  const [search, setSearch] = useState('');
  const [q, setQ] = useState('');
  const orders = useDeskOrders(status, q);
  const markFulfilled = useMarkOrderFulfilled();
  const markMany = useMarkOrdersFulfilled();
  const [confirming, setConfirming] = useState<DeskOrder | null>(null);
  const [tracking, setTracking] = useState<Tracking>({ carrier: '', trackingNumber: '' });
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [confirmingBulk, setConfirmingBulk] = useState(false);
  // An opened order has its own address, /release/orders/<id> (issue 29 item 6): bookmarkable, and Back closes it.
  const detailId = useParams().orderId ?? null;
  const navigate = useNavigate();
  const location = useLocation();
  // The dialog manages focus (and gives it back to the Details button): the layout leaves it be.
  const openDetail = (orderId: string) => navigate(paths.releaseOrder(orderId), { state: { fromDesk: true, keepFocus: true }, preventScrollReset: true });
  const closeDetail = () => {
    if ((location.state as { fromDesk?: boolean } | null)?.fromDesk) navigate(-1);
    else navigate(paths.releaseTab('orders'), { replace: true, state: { keepFocus: true }, preventScrollReset: true });
  };
  const [refunding, setRefunding] = useState<DeskOrder | null>(null);
  // Decision 054: a parcel of some lines, and the explicit "ship before the release date".
  const [shippingPart, setShippingPart] = useState<DeskOrder | null>(null);
  const [early, setEarly] = useState(false);
  const [announcement, setAnnouncement] = useState('');
  const failed = orders.isError;
  const error = orders.error;

  useEffect(() => {
    // Spec section 8: a failed orders listener shows the empty state; the cause is logged.
    if (failed) console.warn('Could not load the orders:', error);
  }, [failed, error]);

  const openFulfil = (order: DeskOrder) => {
    setTracking({ carrier: '', trackingNumber: '' });
    setEarly(false);
    setConfirming(order);
  };

  const confirm = () => {
    const order = confirming;
    if (!order) return;
    const number = tracking.trackingNumber.trim();
    if (number && !tracking.carrier) return toast.error(DESK_MESSAGES.trackingNeedsCarrier);
    if (tracking.carrier && !number) return toast.error(DESK_MESSAGES.trackingNumber);
    // Not confirmed early (issue 39): said at once, and the dialog stays open with what was typed.
    const dates = waitingDates(order.items.filter((item) => !item.shipmentId));
    if (dates && !early) return toast.error(PREORDER_MESSAGES.notYetOut(dates));
    setConfirming(null);
    markFulfilled.mutate(
      { orderId: order.id, ...(tracking.carrier && number ? { carrier: tracking.carrier, trackingNumber: number } : {}), ...(early ? { confirmPreorder: true } : {}) },
      {
        onSuccess: () => setAnnouncement(`Order ${order.id} marked fulfilled.`),
        onError: (failure) => {
          console.warn(`Could not mark order ${order.id} fulfilled:`, failure);
          const notFound = failure instanceof FunctionsError && failure.code === 'not-found';
          const refused = failure instanceof FunctionsError && (failure.code === 'failed-precondition' || failure.code === 'invalid-argument');
          toast.error(notFound ? CHECKOUT_MESSAGES.orderNotFound : refused ? failure.message : CHECKOUT_MESSAGES.fulfilFailed);
          // Open again with the carrier and tracking as typed (they are kept until the next order's dialog).
          if (!notFound) setConfirming(order);
        },
      },
    );
  };

  const confirmBulk = () => {
    const ids = [...selected];
    setConfirmingBulk(false);
    markMany.mutate(ids, {
      onSuccess: ({ results }) => {
        const done = results.filter((result) => result.ok).length;
        setSelected(new Set());
        setAnnouncement(DESK_MESSAGES.bulkFulfilled(done));
        toast.success(DESK_MESSAGES.bulkFulfilled(done));
        for (const result of results.filter((r) => !r.ok)) toast.error(`${result.orderId}: ${result.message ?? CHECKOUT_MESSAGES.fulfilFailed}`);
      },
      onError: (failure) => {
        console.warn('Could not mark the selected orders fulfilled:', failure);
        toast.error(CHECKOUT_MESSAGES.fulfilFailed);
      },
    });
  };

  const submitSearch = (event: FormEvent) => {
    event.preventDefault();
    setQ(search.trim());
    setSelected(new Set());
  };

  const toggle = (orderId: string, on: boolean) =>
    setSelected((current) => {
      const next = new Set(current);
      if (on) next.add(orderId);
      else next.delete(orderId);
      return next;
    });

  const pendingId = markFulfilled.isPending ? markFulfilled.variables?.orderId : undefined;
  const items = orders.data?.pages.flatMap((page) => page.items) ?? [];
  const openList = status === 'unfulfilled' && !q;
  const csvUrl = `/api/admin/packing-list?${new URLSearchParams({ status, ...(q ? { q } : {}) }).toString()}`;

  return (
    <div className="view-orders">
      <h2 className="view-orders__title">{openList ? 'Open orders' : 'Orders'}</h2>
      <div className="view-orders__toolbar">
        <fieldset className="view-orders__filters">
          <legend>Show</legend>
          {ORDER_FILTERS.map((filter) => (
            <label key={filter} className="view-orders__filter">
              <input
                type="radio"
                name="order-filter"
                value={filter}
                checked={status === filter}
                onChange={() => {
                  setStatus(filter);
                  setSelected(new Set());
                }}
              />
              {ORDER_FILTER_LABELS[filter]}
            </label>
          ))}
        </fieldset>
        <form role="search" className="view-orders__search" onSubmit={submitSearch}>
          <label htmlFor="order-search">Search orders</label>
          <input
            id="order-search"
            type="search"
            value={search}
            maxLength={100}
            placeholder="Order id, email, name or product"
            onChange={(event) => setSearch(event.target.value)}
          />
          <button type="submit" className="button button--secondary">
            Search
          </button>
        </form>
        <a className="button button--secondary" href={csvUrl} download>
          Download packing list (CSV)
        </a>
        {selected.size > 0 ? (
          <button type="button" className="button" disabled={markMany.isPending} onClick={() => setConfirmingBulk(true)}>
            Mark selected fulfilled ({selected.size})
          </button>
        ) : null}
      </div>
      <p role="status" className="visually-hidden">
        {announcement}
      </p>
      {orders.isPending ? (
        <OrderListSkeleton label="Loading orders…" count={2} titleWidth="50%" titleHeight="1.4rem" lines={5} />
      ) : items.length === 0 ? (
        <p className="view-orders__empty">{openList ? NO_OPEN_ORDERS : DESK_MESSAGES.noOrdersMatch}</p>
      ) : (
        <OrderList
          orders={items}
          label={openList ? 'Open orders' : 'Orders'}
          pages={orders}
          variant="tab"
          renderOrder={(order) => (
            <AdminOrder
              order={order}
              pending={pendingId === order.id}
              selected={selected.has(order.id)}
              onSelect={(on) => toggle(order.id, on)}
              onMarkFulfilled={() => openFulfil(order)}
              onDetails={() => openDetail(order.id)}
              onRefund={() => setRefunding(order)}
              onShipPart={() => setShippingPart(order)}
            />
          )}
        />
      )}
      <Modal open={confirming !== null} onClose={() => setConfirming(null)} title="Mark this order fulfilled?">
        {confirming ? (
          <p className="view-orders__confirm-text">
            Order {confirming.id} for {confirming.contact.name || confirming.shipping.name} will leave this list, and its buyer will see it as Shipped.
          </p>
        ) : null}
        <FulfilFields value={tracking} onChange={setTracking} />
        {confirming ? <ConfirmEarly dates={waitingDates(confirming.items.filter((item) => !item.shipmentId))} checked={early} onChange={setEarly} id="fulfil-early" /> : null}
        <ConfirmFulfilActions onConfirm={confirm} onCancel={() => setConfirming(null)} />
      </Modal>
      <Modal open={confirmingBulk} onClose={() => setConfirmingBulk(false)} title={`Mark ${selected.size} orders fulfilled?`}>
        <p className="view-orders__confirm-text">Each selected order is marked fulfilled once, and each buyer gets one shipped email.</p>
        <ConfirmFulfilActions onConfirm={confirmBulk} onCancel={() => setConfirmingBulk(false)} />
      </Modal>
      <OrderDetailDialog orderId={detailId} onClose={closeDetail} />
      {shippingPart ? <ShipPartDialog key={shippingPart.id} order={shippingPart} onClose={() => setShippingPart(null)} onShipped={setAnnouncement} /> : null}
      {refunding ? <RefundDialog key={refunding.id} order={refunding} onClose={() => setRefunding(null)} onRefunded={(text) => setAnnouncement(text)} /> : null}
    </div>
  );
}

interface AdminOrderProps {
  order: DeskOrder;
  pending: boolean;
  selected: boolean;
  onSelect: (on: boolean) => void;
  onMarkFulfilled: () => void;
  onDetails: () => void;
  onRefund: () => void;
  onShipPart: () => void;
}

/** The two buttons under a Mark Fulfilled question (one order, or the selected ones). */
function ConfirmFulfilActions({ onConfirm, onCancel }: { onConfirm: () => void; onCancel: () => void }) {
  return <DialogActions label="Yes, Mark Fulfilled" onConfirm={onConfirm} onCancel={onCancel} />;
}

function AdminOrder({ order, pending, selected, onSelect, onMarkFulfilled, onDetails, onRefund, onShipPart }: AdminOrderProps) {
  const openLines = order.items.filter((item) => !item.shipmentId).length;
  const titleId = `admin-order-${order.id}`;
  const canFulfil = !order.orderFulfilled && order.refundStatus !== 'refunded';
  return (
    <OrderCardFrame
      titleId={titleId}
      variant="desk"
      heading={
        <>
          {canFulfil ? (
            <label className="admin-order__select">
              <input type="checkbox" checked={selected} onChange={(event) => onSelect(event.target.checked)} />
              <span className="visually-hidden">Select order {order.id}</span>
            </label>
          ) : null}
          <h3 id={titleId} className="order-card__title">
            Order {order.id}
          </h3>
          <p className="admin-order__date">
            {formatOrderDate(order.createdAt)} <OrderStatusBadge order={order} /> <DisputeBadge dispute={order.dispute} />
          </p>
        </>
      }
      aside={
        <div className="admin-order__actions">
          {canFulfil ? (
            <button type="button" className="button" disabled={pending} aria-busy={pending || undefined} onClick={onMarkFulfilled}>
              {pending ? 'Marking…' : 'Mark Fulfilled'}
            </button>
          ) : null}
          {/* Also for the last line of an order shipped in parts (issue 39): its parcel has its own tracking. */}
          {canFulfil && openLines > 0 && (openLines > 1 || (order.shipments?.length ?? 0) > 0) ? (
            <button type="button" className="button button--secondary" onClick={onShipPart} aria-label={`Ship part of order ${order.id}`}>
              Ship part
            </button>
          ) : null}
          <button type="button" className="button button--secondary" onClick={onDetails} aria-label={`Details of order ${order.id}`}>
            Details
          </button>
          {order.refundStatus !== 'refunded' ? (
            <button type="button" className="button button--secondary" onClick={onRefund} aria-label={`Refund order ${order.id}`}>
              Refund
            </button>
          ) : null}
          {order.refundStatus === 'refunded' && order.discountCode ? <ReturnCodeUse orderId={order.id} code={order.discountCode} /> : null}
        </div>
      }
    >
      <OrderLines items={order.items} />
      <div className="admin-order__grid">
        <OrderTotalsList totals={order.totals} tax={order.tax} discountCode={order.discountCode} />
        <div>
          <p className="order-card__label">Contact</p>
          <p className="admin-order__contact">
            <span>{order.contact.name}</span>
            {order.contact.email ? <a href={`mailto:${order.contact.email}`}>{order.contact.email}</a> : null}
            {order.contact.phone ? <span>{order.contact.phone}</span> : null}
          </p>
        </div>
        <ShipTo label="Ship to" shipping={order.shipping} items={order.items} tracking={trackingBesideParcels(order)} />
      </div>
      <OrderShipments order={order} />
    </OrderCardFrame>
  );
}

/**
 * The order's own tracking, unless a parcel already shows it (issue 39): an order shipped in parts
 * and then marked fulfilled keeps the last parcel's number on the order, so every number is shown.
 */
function trackingBesideParcels(order: DeskOrder) {
  if (!order.tracking) return null;
  const shown = (order.shipments ?? []).some((shipment) => shipment.trackingNumber === order.tracking!.number);
  return shown ? null : order.tracking;
}
