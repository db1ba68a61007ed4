import { useEffect, useLayoutEffect, useRef } from 'react';
import { useLocation, useNavigationType, usePreventScrollReset } from '../../lib/router.tsx';

const STORAGE_KEY = 'sf_scroll_positions';
/** History entries remembered across a reload of the tab; older ones are dropped. */
const MAX_SAVED = 50;

/** Scroll offsets by history entry (location.key), for this tab. */
const positions = new Map<string, number>(readSaved());

function readSaved(): [string, number][] {
  try {
    const saved: unknown = JSON.parse(sessionStorage.getItem(STORAGE_KEY) ?? '[]');
    if (!Array.isArray(saved)) return [];
    return saved.filter((entry): entry is [string, number] => Array.isArray(entry) && typeof entry[0] === 'string' && typeof entry[1] === 'number');
  } catch {
    return [];
  }
}

function save() {
  try {
    sessionStorage.setItem(STORAGE_KEY, JSON.stringify([...positions].slice(-MAX_SAVED)));
  } catch {
    // Storage blocked or full: positions still work until the tab reloads.
  }
}

/**
 * What react-router's <ScrollRestoration> does for its data router: a new page starts at
 * the top (or at its #fragment); Back, Forward and a reload return to where the visitor
 * was on that entry; a navigation with preventScrollReset (a shop filter above the
 * grid) stays where it is.
 */
export function useScrollRestoration() {
  const { key, hash } = useLocation();
  const navigationType = useNavigationType();
  const keepPosition = usePreventScrollReset();
  // Updated during the commit, so a scroll event after it is booked to the page now shown.
  const shownKey = useRef(key);

  useEffect(() => {
    window.history.scrollRestoration = 'manual';
    const remember = () => positions.set(shownKey.current, window.scrollY);
    window.addEventListener('scroll', remember, { passive: true });
    window.addEventListener('pagehide', save);
    return () => {
      window.removeEventListener('scroll', remember);
      window.removeEventListener('pagehide', save);
      window.history.scrollRestoration = 'auto';
    };
  }, []);

  // The page the document was loaded with: the browser placed it (a visitor may have scrolled
  // before it hydrated); only a position this tab saved for the entry (a reload) moves it.
  const loaded = useRef(true);

  useLayoutEffect(() => {
    shownKey.current = key;
    const saved = positions.get(key);
    const first = loaded.current;
    loaded.current = false;
    if (navigationType === 'POP' && saved !== undefined) {
      window.scrollTo(0, saved);
      return;
    }
    if (keepPosition) return;
    const target = hash ? document.getElementById(decodeURIComponent(hash.slice(1))) : null;
    if (target) target.scrollIntoView();
    else if (!first) window.scrollTo(0, 0);
  }, [key, hash, navigationType, keepPosition]);
}
