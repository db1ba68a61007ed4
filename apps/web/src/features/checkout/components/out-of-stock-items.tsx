import type { CartLine } from '@storefront/domain/cart.ts';
import { lineRanOutMessage } from '@storefront/domain/variants.ts';
import { cartStore } from '../../../lib/cart.ts';
import { RemoveLineButton } from './remove-line-button.tsx';

/**
 * Lines that ran out (issue 15), each named with what is left and a way on: reduce it to
 * what is left, or remove it when nothing is.
 */
export function OutOfStockItems({ short, lines }: { short: { lineId: string; left: number }[]; lines: CartLine[] }) {
  const items = short
    .filter((item, index) => short.findIndex((other) => other.lineId === item.lineId) === index)
    .map((item) => ({ ...item, title: lines.find((line) => line.lineId === item.lineId)?.title || item.lineId }));
  return (
    <div className="notice checkout-notice notice--error" role="alert">
      <ul className="checkout-unavailable">
        {items.map((item) => (
          <li key={item.lineId} className="checkout-unavailable__item">
            <span>{lineRanOutMessage(item.title, item.left)}</span>
            {item.left > 0 ? (
              <button type="button" className="button button--secondary checkout-unavailable__remove" onClick={() => cartStore.setQty(item.lineId, item.left)}>
                Reduce to {item.left}
              </button>
            ) : (
              <RemoveLineButton lineId={item.lineId} title={item.title} />
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}
