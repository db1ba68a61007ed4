import { useEffect } from 'react';
import { documentTitle } from '../config/site.ts';

/** Names the browser tab after the page on screen, e.g. "Shop · Street Flavor Records". */
export function usePageTitle(title: string | undefined) {
  useEffect(() => {
    document.title = documentTitle(title);
  }, [title]);
}
