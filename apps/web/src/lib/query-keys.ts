/**
 * Every query key of the web app, one builder per kind of data (issue 14.5). The query
 * options factories build their keys here, and lib/live.ts refetches by the same
 * builders, so renaming a key cannot silently stop live updates; app/live-keys.test.ts
 * checks each live topic against the real factories.
 *
 * TanStack Query matches by prefix: invalidating `all` refetches every key built from it.
 */
export const meKeys = { all: ['me'] as const };

/**
 * The account page (issue 17): the editable profile ('profile' topic) and what deleting
 * the account gives up (wallet credit and orders: the 'wallet' and 'orders' topics).
 */
export const accountKeys = {
  all: ['account'] as const,
  profile: ['account', 'profile'] as const,
  deletion: ['account', 'deletion'] as const,
  /** The fan's follows of the label and its artists (decision 074): the 'profile' topic. */
  follows: ['account', 'follows'] as const,
  /** The fan's marketing consent (decision 074): the 'profile' topic. */
  consent: ['account', 'consent'] as const,
  /** The fan's wishlist (decision 076): the 'profile' topic keeps every heart right across tabs. */
  wishlist: ['account', 'wishlist'] as const,
};

/** A product's roster artists (its follow buttons): a roster change says 'products'. */
export const productArtistKeys = { all: ['product', 'artists'] as const, one: (id: string) => ['product', 'artists', id] as const };

export const siteKeys = { all: ['site'] as const };

/** The raw page response; the footer's copyright shares the home page's entry. */
export const pageKeys = { all: ['pages'] as const, one: (slug: string) => [...pageKeys.all, slug] as const };

export const historyKeys = { all: ['history'] as const };

/** The shop's product list, a page list per search and category. */
export const productListKeys = {
  all: ['products'] as const,
  shop: (q: string, category: string, artist = '') => [...productListKeys.all, 'shop', q, category, artist] as const,
  /** The console's list: every product, withdrawn ones too. */
  console: ['products', 'all'] as const,
  /** The shop's categories (decision 046): a change publishes on the 'products' topic. */
  categories: ['products', 'categories'] as const,
};

/** One product, and the checkout quote, which re-prices when a product changes. */
export const productKeys = {
  all: ['product'] as const,
  one: (id: string) => [...productKeys.all, id] as const,
  /** The /release low-stock list (issue 15): a sale or restock (live 'products') refetches it. */
  lowStock: ['product', 'low-stock'] as const,
};

export const checkoutQuoteKeys = {
  all: [...productKeys.all, 'checkout-quote'] as const,
  one: (input: unknown) => [...checkoutQuoteKeys.all, input] as const,
};

/** The wallet and everything shown from it (DATs, cash-out). */
export const walletKeys = {
  all: ['wallet'] as const,
  dat: (id: string) => [...walletKeys.all, 'dat', id] as const,
  cashout: ['wallet', 'cashout'] as const,
  history: ['wallet', 'history'] as const,
};

/** The buyer's open card payment (decision 044): under the wallet, whose live topic (a hold taken or released) refetches it. */
export const openPaymentKeys = { all: [...walletKeys.all, 'open-payment'] as const };

/** Every order list (the buyer's, View Orders, the desk's): what a fulfilment or refund changes. */
export const orderListKeys = { all: ['orders'] as const };

/** The caller's orders, and one order by its payment. */
export const myOrdersKeys = { all: [...orderListKeys.all, 'mine'] as const };
/** Saved addresses: a new order (live 'orders' topic) may have added one. */
export const savedAddressesKeys = { all: [...myOrdersKeys.all, 'addresses'] as const };
export const myOrderKeys = {
  all: ['order'] as const,
  one: (paymentIntentId: string) => [...myOrderKeys.all, paymentIntentId] as const,
};

/** Admins' View Orders. */
export const openOrdersKeys = { all: [...orderListKeys.all, 'open'] as const };
/** The console's sales overview: under View Orders, so the admins' order topic refetches it. */
export const salesOverviewKeys = {
  all: [...openOrdersKeys.all, 'sales'] as const,
  period: (period: { days?: number; from?: string; to?: string }) => [...salesOverviewKeys.all, period] as const,
};

/** The console's "needs attention" list (decision 044), under the admins' keys: refetched with the activity. */
export const attentionKeys = { all: ['admin', 'attention'] as const, list: (open: boolean) => ['admin', 'attention', open] as const };

/** The console's discount codes (issue 27), under the admins' keys: any audited action refetches them. */
export const discountCodeKeys = { all: ['admin', 'discount-codes'] as const };

/** The console's gift cards (issue 40 item 3), per state shown. */
export const giftCardKeys = { all: ['admin', 'gift-cards'] as const, list: (status: string | null) => ['admin', 'gift-cards', status ?? 'all'] as const };

/** The console's admins and activity list: the admins' live topic refetches both (any audited action). */
export const consoleKeys = {
  all: ['admin'] as const,
  admins: ['admin', 'admins'] as const,
  activity: ['admin', 'activity'] as const,
};

/** The console's Audience tab (issue 37 part 6), under the admins' keys: an import's audit refetches it. */
export const audienceKeys = { all: ['admin', 'audience'] as const, settings: ['admin', 'audience', 'settings'] as const };

/** Shipping zones, rates and tax (issue 26), under the admins' keys: the admins' live topic refetches it after any save. */
export const shippingTaxKeys = { all: ['admin', 'shipping-tax'] as const };

/** The order desk (issue 16): its lists by status and search, and one order's detail. */
export const deskOrdersKeys = {
  all: [...orderListKeys.all, 'desk'] as const,
  list: (status: string, q: string) => [...deskOrdersKeys.all, status, q] as const,
};
export const deskOrderKeys = {
  all: ['order-desk'] as const,
  one: (orderId: string) => [...deskOrderKeys.all, orderId] as const,
};

/** Digital releases (issue 28): a release page, the fan's library, the console's releases and codes. */
export const digitalKeys = {
  all: ['digital'] as const,
  release: (id: number) => ['digital', 'release', id] as const,
  library: ['digital', 'library'] as const,
  console: ['digital', 'console'] as const,
  codes: (releaseId: number) => ['digital', 'codes', releaseId] as const,
};

/** Fair drops (issue 35): a drop's page by address, the fan's own place, the fairness data, the console's views. */
/** The roster's public reads (issue 36, decision 070) and the console's Roster tab. */
/** The console's royalties (issue 36 parts 2-3, decision 075): parties, splits, recoups and balances. */
export const royaltyKeys = {
  console: ['royalties', 'console'] as const,
  statements: ['royalties', 'statements'] as const,
  statement: (ref: string) => ['royalties', 'statements', ref] as const,
  payouts: ['royalties', 'payouts'] as const,
  invitations: ['royalties', 'invitations'] as const,
  /** A party's portal (issue 36 part 6): the caller's own parties, and one issued statement. */
  portal: ['portal'] as const,
  portalStatement: (id: number) => ['portal', 'statement', id] as const,
};

export const rosterKeys = {
  all: ['roster'] as const,
  artist: (slug: string) => ['roster', 'artist', slug] as const,
  list: ['roster', 'list'] as const,
  console: ['roster', 'console'] as const,
};

export const dropKeys = {
  all: ['drops'] as const,
  page: (slug: string) => ['drops', 'page', slug] as const,
  mine: (dropId: string) => ['drops', 'mine', dropId] as const,
  fairness: (slug: string) => ['drops', 'fairness', slug] as const,
  open: ['drops', 'open'] as const,
  waitlists: ['drops', 'waitlists'] as const,
  console: ['admin', 'drops'] as const,
  report: (dropId: string) => ['admin', 'drops', 'report', dropId] as const,
  demand: ['admin', 'drops', 'demand'] as const,
};

/** The console's announcements (issue 37 part 3, decision 079). */
export const announcementKeys = {
  all: ['admin', 'announcements'] as const,
  list: ['admin', 'announcements', 'list'] as const,
  one: (id: number) => ['admin', 'announcements', 'one', id] as const,
  preview: (id: number) => ['admin', 'announcements', 'preview', id] as const,
  automations: ['admin', 'announcements', 'automations'] as const,
};
