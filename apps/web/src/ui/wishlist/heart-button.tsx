import { errorSentence } from '../../lib/error-message.ts';
import { paths } from '../../lib/paths.ts';
import { Link, useLocation } from '../../lib/router.tsx';
import { useSession } from '../../lib/session.ts';
import { useSetWishlisted, useWishlist } from './wishlist-api.ts';
import { HeartIcon } from './heart-icon.tsx';
import { WISHLIST_TEXTS } from './messages.ts';
import './wishlist.css';

/**
 * The wishlist's heart (decision 076) on product and release pages: a toggle button with one
 * name ("Add … to your wishlist") and aria-pressed for its state, kept right across tabs by the live 'profile'
 * topic. A signed-out visitor gets a link to log in and come back.
 */
export function HeartButton({ productId, name }: { productId: string; name: string }) {
  const session = useSession();
  const { pathname } = useLocation();
  const wishlist = useWishlist(session.isSignedIn === true);
  const change = useSetWishlisted();
  if (session.isLoading) return null;
  if (!session.isSignedIn) {
    return (
      <p className="heart">
        <Link to={paths.login} state={{ from: pathname }} className="heart__sign-in" data-testid="wishlist-sign-in">
          <HeartIcon filled={false} /> {WISHLIST_TEXTS.signIn}
        </Link>
      </p>
    );
  }
  const on = wishlist.data?.items.some((item) => item.productId === productId) ?? false;
  return (
    <div className="heart">
      <button
        type="button"
        className={on ? 'heart__button heart__button--on' : 'heart__button'}
        aria-pressed={on}
        aria-label={WISHLIST_TEXTS.add(name)}
        title={on ? WISHLIST_TEXTS.remove(name) : WISHLIST_TEXTS.add(name)}
        disabled={wishlist.isPending || change.isPending}
        onClick={() => change.mutate({ productId, wishlisted: !on })}
      >
        <HeartIcon filled={on} />
        <span aria-hidden="true">{on ? 'On your wishlist' : 'Wishlist'}</span>
      </button>
      {change.isError ? <p role="alert">{errorSentence(change.error, WISHLIST_TEXTS.failed)}</p> : null}
    </div>
  );
}
