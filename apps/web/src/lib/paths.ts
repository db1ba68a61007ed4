/** The console's tabs, in their order on /release (decision 031), each with its own address. */
export const CONSOLE_TABS = [
  'release',
  'orders',
  'products',
  'bundles',
  'categories',
  'music',
  'roster',
  'drops',
  'announcements',
  'content',
  'discounts',
  'sales',
  'audience',
  'shipping',
  'admins',
  'activity',
] as const;
export type ConsoleTab = (typeof CONSOLE_TABS)[number];

/**
 * Every page's address, for the router, links and redirects (issue 14 item 6, decision 036).
 * The lint rule storefront/route-paths refuses a page path written as a string elsewhere
 * in the web app, so renaming a page is one edit here.
 */
export const paths = {
  root: '/',
  home: '/home',
  about: '/about',
  history: '/history',
  shop: '/shop',
  product: (id: string) => `/product/${encodeURIComponent(id)}`,
  contact: '/contact',
  orderConfirmation: '/order-confirmation',
  myOrders: '/my-orders',
  /** One order in My Orders, scrolled to. */
  myOrder: (id: string) => `/my-orders#order-${id}`,
  privacyPolicy: '/privacy-policy',
  login: '/login',
  signup: '/signup',
  resetPassword: '/reset-password',
  account: '/account',
  confirmEmail: '/account/confirm-email',
  wallet: '/wallet',
  dat: (id: string) => `/wallet/dat/${encodeURIComponent(id)}`,
  cashout: '/cashout',
  release: '/release',
  /** A console tab (issue 29 item 6): Release Product is /release itself. */
  releaseTab: (tab: ConsoleTab) => (tab === 'release' ? '/release' : `/release/${tab}`),
  /** One order opened on the console's order desk. */
  releaseOrder: (id: string) => `/release/orders/${encodeURIComponent(id)}`,
  checkout: '/checkout',
  /** A cart reminder's link (decision 078): rebuilds the cart of a checkout left unpaid. */
  cartRestore: '/cart/restore',
  /** A digital release's page (issue 28): artwork, tracks, player, buy. */
  music: (id: number) => `/music/${id}`,
  /** The fan's owned music, to download. */
  library: '/library',
  /** Redeem a download code from a card. */
  redeem: '/redeem',
  /** A drop's page for fans (issue 35): countdown, queue, admission. */
  drop: (slug: string) => `/drops/${encodeURIComponent(slug)}`,
  /** A drop's public fairness page: the commitment, the list's hash, the seed, the order. */
  dropFairness: (slug: string) => `/drops/${encodeURIComponent(slug)}/fairness`,
  /** One drop in the console's Drops tab. */
  releaseDrop: (id: string) => `/release/drops/${encodeURIComponent(id)}`,
  /** The fan's waitlists and offers (the waitlist mail's link). */
  waitlist: '/waitlist',
  /** Leaving a waitlist from the mail's link. */
  waitlistLeave: '/waitlist/leave',
  /** Confirming a signed-out "notify me" from the mail's link (decision 076). */
  notifyConfirm: '/notify/confirm',
  /** The fan's wishlist (decision 076). */
  wishlist: '/wishlist',
  /** An artist's page (issue 36, decision 070): bio, releases, merch. */
  artist: (slug: string) => `/artist/${encodeURIComponent(slug)}`,
  /** The label's roster. */
  artists: '/artists',
  /** A party's royalties portal (issue 36 part 6, decision 080): statements, sales, recoup, payouts. */
  portal: '/portal',
  /** A portal invitation's link: binds the signed-in account to the party. */
  portalAccept: '/portal/accept',
  /** The shop showing one artist's products. */
  shopByArtist: (slug: string) => `/shop?artist=${encodeURIComponent(slug)}`,
} as const;

/** The router's patterns for the pages with a parameter. */
export const routePatterns = {
  product: '/product/:id',
  dat: '/wallet/dat/:id',
  releaseTab: '/release/:tab',
  releaseOrder: '/release/orders/:orderId',
  music: '/music/:id',
  drop: '/drops/:slug',
  dropFairness: '/drops/:slug/fairness',
  releaseDrop: '/release/drops/:dropId',
  artist: '/artist/:slug',
} as const;
