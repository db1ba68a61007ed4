import type { KeyboardEvent } from 'react';
import { Link, useNavigate } from '../../../lib/router.tsx';
import { formatUsd, type Product } from '@storefront/domain/catalog.ts';
import { productSoldOut, STOCK_MESSAGES } from '@storefront/domain/variants.ts';
import { paths } from '../../../lib/paths.ts';
import { PreorderNote } from '../../../ui/preorder-note.tsx';
import { ProductImage } from '../../../ui/product-image.tsx';

/** Shop cards: two columns on phones, a column of about 15rem on wider screens. */
const CARD_IMAGE_SIZES = '(max-width: 725px) 50vw, 16rem';

/** A shop card: opens the product on click, Enter (a link's own) and Space (added here). */
export function ProductCard({ product, priority }: { product: Product; priority: boolean }) {
  const navigate = useNavigate();
  // A digital release is one card that opens its page (issue 39 item 6); merch opens the product.
  const to = product.releaseId !== undefined ? paths.music(product.releaseId) : paths.product(product.id);
  const onKeyDown = (event: KeyboardEvent<HTMLAnchorElement>) => {
    if (event.key !== ' ') return;
    // Space would scroll the page; on a card it opens it, as on a button (once, if held).
    event.preventDefault();
    if (event.repeat) return;
    void navigate(to);
  };
  const image = product.images[0];

  return (
    <Link to={to} className="tile product-card" onKeyDown={onKeyDown}>
      {image ? (
        <ProductImage className="tile__image product-card__image" url={image} alt="" sizes={CARD_IMAGE_SIZES} priority={priority} />
      ) : (
        <span className="tile__image product-card__image product-card__image--none" aria-hidden="true" />
      )}
      <h2 className="product-card__name">{product.name}</h2>
      <p className="product-card__price">
        {formatUsd(product.priceCents)}
        {productSoldOut(product.variants) ? <span className="product-card__sold-out"> {STOCK_MESSAGES.soldOut}</span> : null}
      </p>
      <PreorderNote date={product.releaseDate ?? product.variants.find((variant) => variant.releaseDate)?.releaseDate} as="p" />
    </Link>
  );
}
