import { useId, useState } from 'react';
import type { CartLine } from '@storefront/domain/cart.ts';
import { setNamedAmount } from '@storefront/domain/cart-named-price.ts';
import { formatUsd } from '@storefront/domain/catalog.ts';
import { CHECKOUT_MESSAGES } from '@storefront/domain/pricing.ts';
import { cartStore } from '../../lib/cart.ts';
import { centsToDecimal } from '@storefront/domain/money.ts';

/**
 * The price a fan named for a "name your price" line, changed in the cart (issue 28, decision
 * 064): checked by the domain's rule against the label's minimum; the server prices it again.
 */
export function NamedPrice({ line, title }: { line: CartLine & { amountCents: number }; title: string }) {
  const id = useId();
  const [text, setText] = useState(centsToDecimal(line.amountCents));
  const [problem, setProblem] = useState<string | null>(null);
  const change = () => {
    const trimmed = text.trim();
    const cents = /^\d{1,9}(\.\d{1,2})?$/.test(trimmed) ? Math.round(Number(trimmed) * 100) : Number.NaN;
    const changed = Number.isSafeInteger(cents) ? setNamedAmount(cartStore.get(), line.lineId, cents) : { refused: CHECKOUT_MESSAGES.namedPriceCents };
    if ('cart' in changed) cartStore.put(changed.cart);
    setProblem('refused' in changed ? changed.refused : null);
  };
  return (
    <form
      className="cart-line__named"
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        change();
      }}
    >
      <label htmlFor={id}>
        Your price{line.minimumCents !== undefined ? ` (at least ${formatUsd(line.minimumCents)})` : ''}
        <span className="visually-hidden"> for {title}</span>
      </label>
      <span className="cart-line__named-row">
        <span aria-hidden="true">$</span>
        <input
          id={id}
          inputMode="decimal"
          value={text}
          maxLength={12}
          aria-invalid={problem ? true : undefined}
          aria-describedby={problem ? `${id}-problem` : undefined}
          onChange={(event) => setText(event.target.value)}
        />
        <button type="submit" className="cart-line__reduce">
          Change<span className="visually-hidden"> the price of {title}</span>
        </button>
      </span>
      {problem ? (
        <span id={`${id}-problem`} role="alert" className="cart-line__stock">
          {problem}
        </span>
      ) : null}
    </form>
  );
}
