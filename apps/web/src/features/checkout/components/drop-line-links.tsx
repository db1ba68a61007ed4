import { useCart } from '../../../lib/cart.ts';
import { useOpenDrops } from '../../../lib/open-drops.ts';
import { paths } from '../../../lib/paths.ts';
import { Link } from '../../../lib/router.tsx';

/**
 * Beside a refused order (issue 35): a cart line in a drop sells only with the fan's admission
 * (the server finds it by the account), so the refusal comes with the way to that drop's queue.
 */
export function DropLineLinks({ shown }: { shown: boolean }) {
  const cart = useCart();
  const drops = useOpenDrops();
  if (!shown || !drops.data) return null;
  const inCart = new Set(cart.lines.map((line) => line.productId ?? line.lineId));
  const mine = drops.data.filter((drop) => drop.productIds.some((id) => inCart.has(id)));
  if (mine.length === 0) return null;
  return (
    <p className="checkout-drop-links">
      {mine.map((drop) => (
        <Link key={drop.id} to={paths.drop(drop.slug)}>
          Go to the queue of {drop.name}
        </Link>
      ))}
    </p>
  );
}
