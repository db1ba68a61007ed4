import { useEffect, useRef, type RefObject } from 'react';
import { useLocation } from '../../lib/router.tsx';

function focusHeading(main: HTMLElement): boolean {
  const heading = main.querySelector('h1');
  if (!heading) return false;
  // Headings are not focusable by default; -1 lets script focus them without adding a tab stop.
  if (!heading.hasAttribute('tabindex')) heading.setAttribute('tabindex', '-1');
  heading.focus({ preventScroll: true });
  return true;
}

/**
 * After a client-side navigation, moves keyboard focus to the new page's <h1> so screen
 * reader and keyboard users start at the top of the new content. A page whose code or
 * data is still loading gets focus as soon as its heading appears.
 */
export function useFocusHeadingOnNavigation(mainRef: RefObject<HTMLElement | null>) {
  const { pathname, state } = useLocation();
  const previousPathname = useRef(pathname);
  // A change within one page that manages its own focus (a console tab, an opened order) says so.
  const keepFocus = (state as { keepFocus?: unknown } | null)?.keepFocus === true;

  useEffect(() => {
    // The first page load keeps the browser's own focus; only navigations move it.
    if (previousPathname.current === pathname) return;
    previousPathname.current = pathname;
    if (keepFocus) return;
    const main = mainRef.current;
    if (!main || focusHeading(main)) return;
    const observer = new MutationObserver(() => {
      if (focusHeading(main)) observer.disconnect();
    });
    observer.observe(main, { childList: true, subtree: true });
    return () => observer.disconnect();
  }, [pathname, mainRef, keepFocus]);
}
