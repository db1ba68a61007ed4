import type { CartLine } from '@storefront/domain/cart.ts';
import { formatUsd } from '@storefront/domain/catalog.ts';
import { MAX_LINE_QTY } from '@storefront/domain/pricing.ts';
import type { Product } from '@storefront/domain/catalog.ts';
import { lineName, lineRanOutMessage, variantLabel } from '@storefront/domain/variants.ts';
import { cartStore } from '../../lib/cart.ts';
import { lazyPart } from '../../lib/lazy-part.tsx';
import { useCartStock } from './cart-stock.ts';
import { effectiveReleaseDate } from '@storefront/domain/preorders.ts';
import { PreorderNote } from '../preorder-note.tsx';

/**
 * The line's variant, changed in place (issue 29 item 4): the product's variants, a sold-out one
 * disabled; the quantity moves along, never above what is left of the new one. The checkout
 * checks the stock again on the server.
 */
function VariantChoice({ line, product, title, lines }: { line: CartLine; product: Product; title: string; lines: CartLine[] }) {
  const current = line.variantId ?? line.lineId;
  const choose = (variantId: string) => {
    const variant = product.variants.find((candidate) => candidate.id === variantId);
    if (!variant) return;
    const isDefault = variant.id === product.id;
    cartStore.changeVariant(
      line.lineId,
      {
        lineId: variant.id,
        ...(isDefault ? {} : { productId: product.id, variantId: variant.id }),
        title: lineName(product.name, variant.options),
        image: line.image || (product.images[0] ?? ''),
        priceCents: variant.priceCents,
      },
      variant.stock,
    );
  };
  return (
    <label className="cart-line__variant">
      <span className="visually-hidden">Variant of {title}</span>
      <select value={current} onChange={(event) => choose(event.target.value)}>
        {product.variants.map((variant) => {
          // Held by this cart's other lines on that variant: what this line could still take.
          const elsewhere = lines.filter((other) => other !== line && (other.variantId ?? other.lineId) === variant.id).reduce((sum, other) => sum + other.qty, 0);
          const soldOut = variant.id !== current && variant.stock !== null && variant.stock - elsewhere <= 0;
          return (
            <option key={variant.id} value={variant.id} disabled={soldOut}>
              {variantLabel(variant.options) || product.name}
              {soldOut ? ' (sold out)' : ''}
            </option>
          );
        })}
      </select>
    </label>
  );
}

// Only a "name your price" line needs it: loaded when one is in the cart (first-load budget).
const NamedPrice = lazyPart(() => import('./named-price.tsx').then((m) => m.NamedPrice), { loading: 'Loading…', failed: 'Could not load the price.' });

const IMAGE_SIZE = 56;

/** The cart's lines with their quantity controls; a quantity of zero removes the line (spec section 4). */
export function CartLines({ lines, onLineRemoved }: { lines: CartLine[]; onLineRemoved: () => void }) {
  // The focused button goes with its line: focus moves somewhere sensible instead of the page.
  const remove = (lineId: string) => {
    cartStore.remove(lineId);
    onLineRemoved();
  };

  const stock = useCartStock(lines);

  return (
    <ul className="cart-lines" aria-label="Items in your cart">
      {lines.map((line) => {
        const title = line.title || 'Untitled item';
        // Issue 15: a line asking for more than is left says so and offers to reduce it.
        const max = stock.get(line.lineId)?.max ?? null;
        const product = stock.get(line.lineId)?.product;
        const short = max !== null && line.qty > max;
        return (
          <li key={line.lineId} className="cart-line">
            {line.image ? (
              <img className="cart-line__image" src={line.image} alt="" width={IMAGE_SIZE} height={IMAGE_SIZE} loading="lazy" />
            ) : (
              <span className="cart-line__image cart-line__image--none" aria-hidden="true" />
            )}
            <div className="cart-line__body">
              <p className="cart-line__title">{title}</p>
              <p className="cart-line__price">{formatUsd(line.priceCents)}</p>
              {product ? (
                <PreorderNote
                  date={effectiveReleaseDate(
                    product,
                    product.variants.find((variant) => variant.id === (line.variantId ?? line.lineId)),
                  )}
                  as="p"
                />
              ) : null}
              {line.amountCents !== undefined ? <NamedPrice.Part line={{ ...line, amountCents: line.amountCents }} title={title} /> : null}
              {product && product.variants.length > 1 ? <VariantChoice line={line} product={product} title={title} lines={lines} /> : null}
              <div className="cart-line__controls">
                {/* A download is one copy (issue 39): no quantity to change. */}
                {line.digital ? null : (
                  <div className="cart-qty" role="group" aria-label={`Quantity of ${title}`}>
                    <button
                      type="button"
                      className="cart-qty__button"
                      aria-label={`Decrease quantity of ${title}`}
                      onClick={() => (line.qty > 1 ? cartStore.setQty(line.lineId, line.qty - 1) : remove(line.lineId))}
                    >
                      −
                    </button>
                    <output className="cart-qty__value" aria-live="polite">
                      {line.qty}
                    </output>
                    <button
                      type="button"
                      className="cart-qty__button"
                      aria-label={`Increase quantity of ${title}`}
                      disabled={line.qty >= MAX_LINE_QTY || (max !== null && line.qty >= max)}
                      onClick={() => cartStore.setQty(line.lineId, line.qty + 1)}
                    >
                      +
                    </button>
                  </div>
                )}
                <button type="button" className="cart-line__remove" aria-label={`Remove ${title}`} onClick={() => remove(line.lineId)}>
                  Remove
                </button>
              </div>
              {short ? (
                <p className="cart-line__stock" role="alert">
                  {lineRanOutMessage(title, max)}{' '}
                  {max > 0 ? (
                    <button type="button" className="cart-line__reduce" onClick={() => cartStore.setQty(line.lineId, max)}>
                      Reduce to {max}
                    </button>
                  ) : null}
                </p>
              ) : null}
            </div>
          </li>
        );
      })}
    </ul>
  );
}
