import { useRef } from 'react';
import { Outlet } from '../../lib/router.tsx';
import { Footer } from './footer.tsx';
import { Header } from './header.tsx';
import { useFocusHeadingOnNavigation } from './use-focus-heading.ts';
import { useScrollRestoration } from './use-scroll-restoration.ts';

const MAIN_ID = 'main-content';

/** The frame around every page: skip link, header, the page itself, footer. */
export function AppLayout() {
  const mainRef = useRef<HTMLElement>(null);
  useScrollRestoration();
  useFocusHeadingOnNavigation(mainRef);

  return (
    <div className="app-shell">
      <a
        className="skip-link"
        href={`#${MAIN_ID}`}
        onClick={(event) => {
          // Focus directly: a hash change would count as a navigation in the router.
          event.preventDefault();
          mainRef.current?.focus();
        }}
      >
        Skip to main content
      </a>
      <Header />
      <main ref={mainRef} id={MAIN_ID} className="site-main" tabIndex={-1}>
        <Outlet />
      </main>
      <Footer />
    </div>
  );
}
