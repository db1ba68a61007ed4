import type { ReactNode } from 'react';
import { NavLink } from '../../lib/router.tsx';

/** One entry of the header navigation; the current page is marked with aria-current. */
export function HeaderNavLink({ to, children }: { to: string; children: ReactNode }) {
  return (
    <li className="site-nav__item">
      <NavLink to={to} className="site-nav__link">
        {children}
      </NavLink>
    </li>
  );
}
