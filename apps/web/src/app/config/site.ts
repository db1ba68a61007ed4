export const SITE_NAME = 'Street Flavor Records';

/** How long a page's code may take to arrive before we offer a retry (spec section 9). */
export const LAZY_LOAD_TIMEOUT_MS = 120_000;

/** Spec section 9: toasts close after 1800 ms in the app. */
export const TOAST_AUTO_CLOSE_MS = 1800;

/** The page title shown in the browser tab, e.g. "Shop · Street Flavor Records". */
export function documentTitle(pageTitle: string | undefined): string {
  return pageTitle ? `${pageTitle} · ${SITE_NAME}` : SITE_NAME;
}
