import { useEffect } from 'react';
import { documentTitle } from '../app/config/site.ts';

/**
 * Names the browser tab after the page on screen, e.g. "Shop · Street Flavor Records". A page
 * about one thing (a product, a release) names itself after it, as the server's <title> does
 * (decision 062); null leaves the title to such a page.
 */
export function usePageTitle(title: string | undefined | null) {
  useEffect(() => {
    if (title !== null) document.title = documentTitle(title);
  }, [title]);
}
