import { useEffect, useRef, useState, type RefObject } from 'react';
import { Link } from '../../lib/router.tsx';
import { SocialLinks } from './social-links.tsx';
import { useCopyright } from './use-copyright.ts';
import './footer.css';
import { paths } from '../../lib/paths.ts';

/** How far below the screen the footer starts asking for its copyright line. */
const NEAR_SCREEN = '600px';

export function Footer() {
  const ref = useRef<HTMLElement>(null);
  const near = useNearScreen(ref);
  const copyright = useCopyright(near);
  return (
    <footer ref={ref} className="site-footer">
      <div className="site-footer__inner">
        <p className="site-footer__copyright">{copyright}</p>
        <nav aria-label="Footer" className="site-footer__nav">
          <Link to={paths.artists}>Artists</Link>
          <Link to={paths.history}>History</Link>
          <Link to={paths.privacyPolicy}>Privacy Policy</Link>
        </nav>
        <SocialLinks />
      </div>
    </footer>
  );
}

/** Whether the element is on or near the screen (once true, it stays true). */
function useNearScreen(ref: RefObject<HTMLElement | null>): boolean {
  // Without IntersectionObserver (no current browser), it asks at once.
  const [near, setNear] = useState(() => typeof IntersectionObserver === 'undefined');
  useEffect(() => {
    const element = ref.current;
    if (near || !element) return undefined;
    const observer = new IntersectionObserver(
      (entries) => {
        if (entries.some((entry) => entry.isIntersecting)) setNear(true);
      },
      { rootMargin: `${NEAR_SCREEN} 0px` },
    );
    observer.observe(element);
    return () => observer.disconnect();
  }, [ref, near]);
  return near;
}
