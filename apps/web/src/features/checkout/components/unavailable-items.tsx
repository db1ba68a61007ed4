import type { CartLine } from '@storefront/domain/cart.ts';
import { cartStore } from '../../../lib/cart.ts';
import { CHECKOUT_TEXTS } from '../messages.ts';
import { RemoveLineButton } from './remove-line-button.tsx';

/**
 * Items the server no longer sells (withdrawn or unknown), named from the cart, each
 * with a way out: the order is refused until they are gone (issue 5, Checkout page).
 */
export function UnavailableItems({ ids, lines }: { ids: string[]; lines: CartLine[] }) {
  const items = ids.map((id) => ({ id, title: lines.find((line) => line.lineId === id)?.title || id }));
  return (
    <div className="notice checkout-notice notice--error" role="alert">
      <p className="checkout-notice__text">{CHECKOUT_TEXTS.unavailable}</p>
      <ul className="checkout-unavailable">
        {items.map((item) => (
          <li key={item.id} className="checkout-unavailable__item">
            <span>{item.title}</span>
            <RemoveLineButton lineId={item.id} title={item.title} />
          </li>
        ))}
      </ul>
      {items.length > 1 ? (
        <button type="button" className="button" onClick={() => items.forEach((item) => cartStore.remove(item.id))}>
          {CHECKOUT_TEXTS.removeAllUnavailable}
        </button>
      ) : null}
    </div>
  );
}
