import { cartStore } from '../../../lib/cart.ts';

/** The Remove button of a cart line the order cannot take (withdrawn, or none left). */
export function RemoveLineButton({ lineId, title }: { lineId: string; title: string }) {
  return (
    <button type="button" className="button button--secondary checkout-unavailable__remove" aria-label={`Remove ${title} from the cart`} onClick={() => cartStore.remove(lineId)}>
      Remove
    </button>
  );
}
