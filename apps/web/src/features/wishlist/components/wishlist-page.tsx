import { formatUsd } from '@storefront/domain/money.ts';
import { errorSentence } from '../../../lib/error-message.ts';
import { paths } from '../../../lib/paths.ts';
import { Link, useLocation } from '../../../lib/router.tsx';
import { useSession } from '../../../lib/session.ts';
import { Badge, type BadgeTone } from '../../../ui/badge.tsx';
import { ProductImage } from '../../../ui/product-image.tsx';
import { LoadingRegion, SkeletonText } from '../../../ui/skeleton.tsx';
import { HeartButton } from '../../../ui/wishlist/heart-button.tsx';
import { useWishlist, type WishlistItem } from '../../../ui/wishlist/wishlist-api.ts';
import './wishlist-page.css';

const STATE: Record<WishlistItem['state'], { label: string; tone: BadgeTone }> = {
  'in-stock': { label: 'In stock', tone: 'success' },
  'sold-out': { label: 'Sold out', tone: 'danger' },
  preorder: { label: 'Preorder', tone: 'pending' },
};

/**
 * /wishlist (issue 37 part 5, decision 076): the signed-in fan's hearted products, newest
 * first, each with its state (in stock, sold out, preorder) and price now, kept right live
 * (a heart in another tab, a restock). The heart removes an item.
 */
export function WishlistPage() {
  const session = useSession();
  const { pathname } = useLocation();
  const wishlist = useWishlist(session.isSignedIn === true);
  return (
    <section className="page wishlist-page">
      <h1>My wishlist</h1>
      {session.isLoading ? (
        <p>Checking your account…</p>
      ) : !session.isSignedIn ? (
        <p>
          <Link to={paths.login} state={{ from: pathname }} className="button">
            Log in to see your wishlist
          </Link>
        </p>
      ) : wishlist.isPending ? (
        <LoadingRegion label="Loading your wishlist…">
          <SkeletonText lines={3} />
        </LoadingRegion>
      ) : wishlist.isError ? (
        <p role="alert">{errorSentence(wishlist.error, 'Could not read your wishlist.')}</p>
      ) : wishlist.data.items.length === 0 ? (
        <p>
          Your wishlist is empty. Press the heart on a product or release to keep it here. <Link to={paths.shop}>Go to the shop</Link>
        </p>
      ) : (
        <ul className="wishlist" aria-label="Wishlist">
          {wishlist.data.items.map((item) => (
            <li key={item.productId} className="wishlist__item" data-testid="wishlist-item">
              <Link to={paths.product(item.productId)} className="wishlist__image" tabIndex={-1} aria-hidden="true">
                {item.image ? <ProductImage url={item.image} alt="" sizes="96px" /> : null}
              </Link>
              <div className="wishlist__body">
                <Link to={paths.product(item.productId)} className="wishlist__name">
                  {item.name}
                </Link>
                <p className="wishlist__meta">
                  <Badge tone={STATE[item.state].tone}>{STATE[item.state].label}</Badge> <span>{formatUsd(item.priceCents)}</span>
                </p>
                <HeartButton productId={item.productId} name={item.name} />
              </div>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
