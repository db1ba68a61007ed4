import { useState } from 'react';
import { DESK_MESSAGES } from '@storefront/domain/order-desk.ts';
import { formatShipDate, PREORDER_MESSAGES } from '@storefront/domain/preorders.ts';
import { CHECKOUT_MESSAGES } from '@storefront/domain/pricing.ts';
import { FunctionsError } from '@storefront/sdk/callable.ts';
import { toast } from '../../../lib/toast.ts';
import { Modal } from '../../../ui/modal.tsx';
import { PreorderNote } from '../../../ui/preorder-note.tsx';
import type { DeskOrder } from '../api/list-orders.ts';
import { useShipOrderPart } from '../api/ship-order-part.ts';
import { DialogActions, FulfilFields, type Tracking } from './order-desk-dialogs.tsx';

/** The street dates among these lines that are not out yet (the server leaves `shipsOn` off once out). */
export function waitingDates(lines: { shipsOn?: string | undefined }[]): string | undefined {
  const dates = [...new Set(lines.map((line) => line.shipsOn).filter((date): date is string => Boolean(date)))].sort();
  return dates.length === 0 ? undefined : dates.map(formatShipDate).join(', ');
}

/** "Ship early": the explicit confirmation a preorder line needs before its street date (decision 054). */
export function ConfirmEarly({ dates, checked, onChange, id }: { dates: string | undefined; checked: boolean; onChange: (on: boolean) => void; id: string }) {
  if (!dates) return null;
  return (
    <div className="view-orders__early">
      <p className="view-orders__confirm-text" role="note">
        {PREORDER_MESSAGES.notYetOut(dates)}
      </p>
      <label htmlFor={id}>
        <input id={id} type="checkbox" checked={checked} onChange={(event) => onChange(event.target.checked)} /> Ship before the release date
      </label>
    </div>
  );
}

/**
 * Ship part of an order (decision 054): the admin picks the lines of this parcel and its tracking;
 * the buyer sees each parcel in My Orders and gets the shipped email for it.
 */
export function ShipPartDialog({ order, onClose, onShipped }: { order: DeskOrder; onClose: () => void; onShipped: (text: string) => void }) {
  const ship = useShipOrderPart();
  const open = order.items.map((item, lineId) => ({ ...item, lineId })).filter((item) => !item.shipmentId);
  const [chosen, setChosen] = useState<Set<number>>(new Set());
  const [tracking, setTracking] = useState<Tracking>({ carrier: '', trackingNumber: '' });
  const [early, setEarly] = useState(false);
  const dates = waitingDates(open.filter((item) => chosen.has(item.lineId)));

  const submit = () => {
    if (chosen.size === 0) return toast.error(PREORDER_MESSAGES.noLinesToShip);
    const number = tracking.trackingNumber.trim();
    if (number && !tracking.carrier) return toast.error(DESK_MESSAGES.trackingNeedsCarrier);
    if (tracking.carrier && !number) return toast.error(DESK_MESSAGES.trackingNumber);
    if (dates && !early) return toast.error(PREORDER_MESSAGES.notYetOut(dates));
    ship.mutate(
      {
        orderId: order.id,
        lineIds: [...chosen].sort((a, b) => a - b),
        ...(tracking.carrier && number ? { carrier: tracking.carrier, trackingNumber: number } : {}),
        ...(early ? { confirmPreorder: true } : {}),
      },
      {
        onSuccess: (result) => {
          const text = result.orderFulfilled ? `Order ${order.id}: last part shipped; the order is fulfilled.` : `Order ${order.id}: part shipped.`;
          toast.success(text);
          onShipped(text);
          onClose();
        },
        onError: (failure) => {
          console.warn(`Could not ship part of order ${order.id}:`, failure);
          const refused = failure instanceof FunctionsError && ['failed-precondition', 'invalid-argument', 'not-found'].includes(failure.code);
          toast.error(refused ? failure.message : CHECKOUT_MESSAGES.fulfilFailed);
        },
      },
    );
  };

  return (
    <Modal open onClose={onClose} title={`Ship part of order ${order.id}`}>
      <fieldset className="view-orders__part-lines">
        <legend>Lines in this parcel</legend>
        {open.map((item) => (
          <label key={item.lineId} className="view-orders__part-line">
            <input
              type="checkbox"
              checked={chosen.has(item.lineId)}
              onChange={(event) =>
                setChosen((current) => {
                  const next = new Set(current);
                  if (event.target.checked) next.add(item.lineId);
                  else next.delete(item.lineId);
                  return next;
                })
              }
            />{' '}
            {item.name} × {item.qty} <PreorderNote date={item.shipsOn} />
          </label>
        ))}
      </fieldset>
      <FulfilFields value={tracking} onChange={setTracking} idPrefix="part" />
      <ConfirmEarly dates={dates} checked={early} onChange={setEarly} id="part-early" />
      <DialogActions label="Ship this parcel" pendingLabel="Shipping…" pending={ship.isPending} onConfirm={submit} onCancel={onClose} />
    </Modal>
  );
}
