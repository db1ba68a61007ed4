import { useSession, useSignOut } from '../../lib/session.ts';
import { CartWidget } from '../../ui/cart-widget/cart-widget.tsx';
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
 *   WalletSlot: WALLET link, signed-in users only. AdminOrdersSlot: ADMIN (/release) for
 *   admins, MY ORDERS (/my-orders) for other signed-in users. AccountSlot: LOGIN link,
 *   or a LOGOUT button when signed in.
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

export function AdminOrdersSlot() {
  const { user } = useSession();
  if (!user) return null;
  return user.isAdmin ? (
    <HeaderNavLink to={paths.release}>ADMIN</HeaderNavLink>
  ) : (
    <HeaderNavLink to={paths.myOrders}>MY ORDERS</HeaderNavLink>
  );
}

export function AccountSlot() {
  const { isSignedIn } = useSession();
  if (isSignedIn === undefined) return null;
  return isSignedIn ? <LogoutButton /> : <HeaderNavLink to={paths.login}>LOGIN</HeaderNavLink>;
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
