import { useEffect } from 'react';
import { useMutation } from '@tanstack/react-query';
import type { FunctionOutput } from '@storefront/domain/contracts/index.ts';
import { addToCart, setQty } from '@storefront/domain/cart.ts';
import { functionsClient } from '../../../lib/api-client.ts';
import { cartStore } from '../../../lib/cart.ts';
import { errorSentence } from '../../../lib/error-message.ts';
import { paths } from '../../../lib/paths.ts';
import { Link, useSearchParams } from '../../../lib/router.tsx';

type Restored = FunctionOutput<'restoreCart'>;

/** Puts the link's lines in the cart; a line there already keeps the larger quantity, so opening the link twice adds nothing twice. */
function putInCart(restored: Restored) {
  let cart = cartStore.get();
  for (const { qty, ...line } of restored.lines) {
    const existing = cart.lines.find((candidate) => candidate.lineId === line.lineId);
    cart = existing ? setQty(cart, line.lineId, Math.max(existing.qty, qty)) : addToCart(cart, line, qty);
  }
  cartStore.put(cart);
}

/**
 * A cart reminder's link (issue 37 part 7, decision 078): the signed link names the checkout
 * left unpaid; the lines still for sale go back in the cart, and the fan goes on to the checkout.
 */
export function CartRestorePage() {
  const [search] = useSearchParams();
  const token = search.get('token') ?? '';
  const restore = useMutation({
    mutationFn: (value: string) => functionsClient.call('restoreCart', { token: value }),
    onSuccess: (restored) => {
      if (restored.valid) putInCart(restored);
    },
  });
  const { mutate } = restore;
  useEffect(() => {
    if (token) mutate(token);
  }, [token, mutate]);
  const restored = restore.data;
  const count = restored?.lines.reduce((sum, line) => sum + line.qty, 0) ?? 0;
  return (
    <section className="page cart-restore-page">
      <h1>Your cart</h1>
      <p role="status">
        {!token || (restored && !restored.valid)
          ? 'This link is not valid any more: your cart could not be rebuilt.'
          : restore.isError
            ? errorSentence(restore.error, 'Could not rebuild your cart.')
            : !restored
              ? 'Rebuilding your cart…'
              : count === 0
                ? 'Nothing from that cart is for sale any more.'
                : `Your cart is back: ${count} ${count === 1 ? 'item' : 'items'}.${restored.missing > 0 ? ` ${restored.missing} ${restored.missing === 1 ? 'item is' : 'items are'} no longer for sale.` : ''}`}
      </p>
      {restored && restored.lines.length > 0 ? (
        <>
          <ul>
            {restored.lines.map((line) => (
              <li key={line.lineId}>
                {line.qty} × {line.title}
              </li>
            ))}
          </ul>
          <Link className="button" to={paths.checkout}>
            Go to checkout
          </Link>
        </>
      ) : (
        <Link to={paths.shop}>Back to the shop</Link>
      )}
    </section>
  );
}
