import { HeaderNavLink } from './header-nav-link.tsx';

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
 * The mobile menu closes by itself when the path changes, so a slot needs no callback.
 */

export function CartSlot() {
  return null;
}

export function WalletSlot() {
  return null;
}

export function AdminOrdersSlot() {
  return null;
}

export function AccountSlot() {
  return <HeaderNavLink to="/login">LOGIN</HeaderNavLink>;
}
