import { NavLink } from '../../lib/router.tsx';
import { useSession, useSignOut } from '../../lib/session.ts';
import { CartWidget } from '../../ui/cart-widget/cart-widget.tsx';
import { HeartIcon } from '../../ui/wishlist/heart-icon.tsx';
import { HeaderNavLink } from './header-nav-link.tsx';
import { paths } from '../../lib/paths.ts';

/*
 * Places in the header that later areas fill (spec section 2, Header). The header renders
 * these components and nothing else knows about them, so filling a slot means changing
 * only this file (or the component it renders):
 *
 * - CartSlot: top left, before the logo. The cart widget (icon with count, panel).
 * - WalletSlot, AdminOrdersSlot, AccountSlot: inside the navigation list. Each returns
 *   null or one or more <li> elements; HeaderNavLink renders a ready-made <li>.
 *   WalletSlot: WALLET link, signed-in users only. LibrarySlot: MY MUSIC (/library, what
 *   they bought or redeemed; /redeem from there), signed-in users only (issue 39 item 5). AdminOrdersSlot: ADMIN (/release) for
 *   admins, MY ORDERS (/my-orders) for other signed-in users. AccountSlot: LOGIN link,
 *   or, when signed in, the wishlist and My account links (a heart and a person icon on
 *   desktops, to keep the bar on one row; "MY WISHLIST" and "MY ACCOUNT" in the mobile menu)
 *   and a LOGOUT button.
 *
 * The account slots render nothing until the server has said who is signed in, so a
 * signed-in visitor never sees LOGIN flash by (nor a visitor a WALLET link).
 * The mobile menu closes by itself when the path changes, so a slot needs no callback.
 */

export function CartSlot() {
  return <CartWidget />;
}

export function WalletSlot() {
  const { isSignedIn } = useSession();
  return isSignedIn ? <HeaderNavLink to={paths.wallet}>WALLET</HeaderNavLink> : null;
}

export function LibrarySlot() {
  const { isSignedIn } = useSession();
  return isSignedIn ? (
    <HeaderNavLink to={paths.library}>
      <span className="site-nav__my">MY </span>MUSIC
    </HeaderNavLink>
  ) : null;
}

export function AdminOrdersSlot() {
  const { user } = useSession();
  if (!user) return null;
  return user.isAdmin ? (
    <HeaderNavLink to={paths.release}>ADMIN</HeaderNavLink>
  ) : (
    <HeaderNavLink to={paths.myOrders}>
      <span className="site-nav__my">MY </span>ORDERS
    </HeaderNavLink>
  );
}

export function AccountSlot() {
  const { isSignedIn } = useSession();
  if (isSignedIn === undefined) return null;
  return isSignedIn ? (
    <>
      <WishlistLink />
      <AccountLink />
      <LogoutButton />
    </>
  ) : (
    <HeaderNavLink to={paths.login}>LOGIN</HeaderNavLink>
  );
}

/** The wishlist (decision 076): a heart on desktops, beside the account's icon; "MY WISHLIST" in the mobile menu. */
function WishlistLink() {
  return (
    <li className="site-nav__item">
      <NavLink to={paths.wishlist} className="site-nav__link site-nav__account" title="My wishlist">
        <HeartIcon filled={false} />
        <span className="site-nav__account-text">MY WISHLIST</span>
      </NavLink>
    </li>
  );
}

function AccountLink() {
  return (
    <li className="site-nav__item">
      <NavLink to={paths.account} className="site-nav__link site-nav__account" title="My account">
        <svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false">
          <circle cx="12" cy="8" r="4" fill="none" stroke="currentColor" strokeWidth="2" />
          <path d="M4 21c0-4.4 3.6-7 8-7s8 2.6 8 7" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" />
        </svg>
        <span className="site-nav__account-text">MY ACCOUNT</span>
      </NavLink>
    </li>
  );
}

function LogoutButton() {
  const { signOut, isPending } = useSignOut();
  return (
    <li className="site-nav__item">
      <button type="button" className="site-nav__link" onClick={signOut} disabled={isPending} aria-busy={isPending || undefined}>
        LOGOUT
      </button>
    </li>
  );
}
