import { useRef, useState, type KeyboardEvent } from 'react';
import { Link, useLocation } from '../../lib/router.tsx';
import { HeaderNavLink } from './header-nav-link.tsx';
import { AccountSlot, AdminOrdersSlot, CartSlot, LibrarySlot, WalletSlot } from './header-slots.tsx';
import { MarketPlaceMenu } from './market-place-menu.tsx';
import { SocialLinks } from './social-links.tsx';
import './header.css';
import { paths } from '../../lib/paths.ts';

const NAV_ID = 'site-nav';

export function Header() {
  const { pathname } = useLocation();
  // The menu belongs to the page it was opened on, so any navigation closes it.
  const [openOnPath, setOpenOnPath] = useState<string | null>(null);
  const menuOpen = openOnPath === pathname;
  const toggleRef = useRef<HTMLButtonElement>(null);

  const closeOnEscape = (event: KeyboardEvent<HTMLElement>) => {
    if (event.key !== 'Escape' || !menuOpen) return;
    setOpenOnPath(null);
    toggleRef.current?.focus();
  };

  return (
    <header className="site-header" onKeyDown={closeOnEscape}>
      <div className="site-header__bar">
        <div className="site-header__start">
          <CartSlot />
          <Link to={paths.home} className="logo">
            <span className="logo__words">
              <span className="logo__main">STREET FLAVOR</span> <span className="logo__sub">RECORDS</span>
            </span>
            {/* The narrow desktop's logo; the words above stay the link's name. */}
            <span className="logo__mark" aria-hidden="true">
              SFR
            </span>
          </Link>
        </div>
        <button
          ref={toggleRef}
          type="button"
          className="icon-button menu-toggle"
          aria-label="Menu"
          aria-expanded={menuOpen}
          aria-controls={NAV_ID}
          onClick={() => setOpenOnPath(menuOpen ? null : pathname)}
        >
          <span className="menu-toggle__bars" aria-hidden="true" />
        </button>
        <nav id={NAV_ID} className="site-nav" aria-label="Main" data-open={menuOpen ? 'true' : 'false'}>
          <ul className="site-nav__list">
            <HeaderNavLink to={paths.home}>HOME</HeaderNavLink>
            <HeaderNavLink to={paths.about}>ABOUT</HeaderNavLink>
            <HeaderNavLink to={paths.shop}>SHOP</HeaderNavLink>
            <HeaderNavLink to={paths.contact}>CONTACT</HeaderNavLink>
            <WalletSlot />
            <AdminOrdersSlot />
            <LibrarySlot />
            <li className="site-nav__item">
              <MarketPlaceMenu />
            </li>
            <AccountSlot />
          </ul>
          <SocialLinks className="site-nav__social" />
        </nav>
      </div>
    </header>
  );
}
