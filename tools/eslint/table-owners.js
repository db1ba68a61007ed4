// Each area owns its tables (issue 23, decision 044; STYLE.md "Each area owns its tables"):
// a service names only its own area's tables and asks another area's service for the rest.
// The exceptions are listed per file with the reason; a new one is a decision, not a habit.
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');

/** The area (folder under apps/server/src) that owns each table. */
export const TABLE_OWNERS = {
  accounts: [
    'users',
    'sessions',
    'authAccounts',
    'verifications',
    'authRateLimits',
    'rateLimitWindows',
    'follows',
    'userStats',
    'catalogueItems',
    'portalAllowedUsers',
    'savedAddresses',
    'signInGuards',
  ],
  mail: ['devMailbox', 'mailSuppressions'],
  audit: ['adminAudit'],
  catalog: ['products', 'productImages', 'productVariants', 'stockMovements', 'productCategories', 'bundleComponents'],
  content: ['contentPages', 'timelineEntries', 'seedRuns'],
  wallet: ['wallets', 'ledgerEntries', 'datAssets', 'datEditions', 'tokenBlocks', 'walletEntries', 'creditSummaries', 'utilitySpend', 'rewardTokenWallets', 'platformMetrics'],
  checkout: ['checkouts', 'paymentRefunds', 'needsAttention'],
  shipping: ['shippingTaxSettings', 'taxCalculations'],
  discounts: ['discountCodes', 'discountUses'],
  preorders: ['preorderNotices'],
  drops: ['drops', 'dropItems', 'dropEntries', 'dropUsedChallenges', 'variantWaitlist'],
  giftcards: ['giftCards'],
  orders: ['orders', 'orderItems', 'orderShipments', 'orderSearchTerms', 'orderItemTerms', 'orderRefunds', 'orderEvents'],
  payments: ['processedEvents', 'localRefunds'],
  payouts: ['payoutAccounts', 'payoutRequests', 'datEarnings', 'localTransfers'],
  oidc: ['oauthClients', 'oidcModels', 'oidcSigningKeys'],
  storage: ['storageObjects', 'storageUploadSessions', 'storageUploadPending'],
  digital: ['releases', 'releaseTracks', 'trackFiles', 'downloadCodes', 'digitalOwnership', 'releaseProducts'],
  service: ['serviceTokens', 'serviceWrites'],
  roster: ['artists', 'artistSlugs', 'releaseArtists', 'trackArtists', 'productArtists'],
  fans: ['fanFollows', 'marketingConsents', 'wishlistItems', 'announcements', 'announcementRecipients', 'announcementAutomations'],
  royalties: [
    'royaltyParties',
    'royaltyRules',
    'royaltyRuleShares',
    'royaltyCosts',
    'royaltySlices',
    'royaltyEntries',
    'royaltyStatements',
    'royaltyStatementEntries',
    'royaltyPayoutRuns',
    'royaltyPayouts',
    'royaltyInvitations',
    'royaltyPartyMembers',
  ],
};

const OWNER = new Map(Object.entries(TABLE_OWNERS).flatMap(([area, tables]) => tables.map((table) => [table, area])));

/** Other areas' tables a file may name, and why. Reads only, unless the reason says otherwise. */
export const EXCEPTIONS = {
  // A download code's redeemer is shown by email in the console (issue 28): a join, read only.
  'apps/server/src/digital/codes.service.ts': ['users'],
  // The buyer's email and name beside their orders (desk search, refunds mail): a join, read only.
  'apps/server/src/orders/refund-writes.service.ts': ['users'],
  'apps/server/src/orders/refund-events.service.ts': ['users'],
  'apps/server/src/orders/desk.service.ts': ['users'],
  // Admin rights are a column of the account (Better Auth's role): the admin area sets it.
  'apps/server/src/admin/admins.service.ts': ['users'],
  'apps/server/src/audit/audit.service.ts': ['users'],
  // A product with orders or open checkouts cannot be deleted: an EXISTS, read only.
  'apps/server/src/catalog/catalog.service.ts': ['checkouts', 'orderItems'],
  // The wallet-only order's one-round-trip start and the reconciler's outcome check (decision 044): reads.
  // releaseProducts: whether a cart's product grants downloads, so the order reads the grants only then (decision 067).
  'apps/server/src/checkout/checkouts.service.ts': ['orders', 'products', 'productVariants', 'releaseProducts', 'users', 'wallets'],
  // A history line names its order (a refund's through its desk refund, decision 050); the CLI and seed find a wallet's owner by email: reads.
  'apps/server/src/wallet/wallet-history.service.ts': ['orders', 'orderRefunds'],
  'apps/server/src/wallet/wallet.commands.ts': ['users'],
  'apps/server/src/wallet/wallet.seed.ts': ['users'],
  // The sister products' writes feed the wallet's token tables and earnings in one transaction (decision 010).
  'apps/server/src/service/service.writes.ts': [
    'users',
    'creditSummaries',
    'datAssets',
    'datEarnings',
    'datEditions',
    'platformMetrics',
    'rewardTokenWallets',
    'walletEntries',
    'tokenBlocks',
    'utilitySpend',
  ],
  'apps/server/src/payouts/payouts.service.ts': ['creditSummaries', 'users'],
  // Orphaned images (decision 047): is an object's address stored anywhere? EXISTS reads only.
  'apps/server/src/storage/orphans.service.ts': ['productImages', 'contentPages', 'users', 'datAssets', 'releases'],
  // A drop's variants: names, prices, first image and units left for its page, and the queue's units left (decision 066): reads.
  'apps/server/src/drops/drops.service.ts': ['products', 'productVariants', 'productImages'],
  'apps/server/src/drops/drop-queue.service.ts': ['productVariants'],
  // A waitlist names its variant and offers the units in stock beyond open offers (decision 066): reads.
  'apps/server/src/drops/waitlist.service.ts': ['products', 'productVariants'],
  'apps/server/src/drops/notify-me.service.ts': ['products', 'productVariants'],
  // A wishlist shows its products' state and price, and tells a fan when one is back (decision 076): reads.
  'apps/server/src/fans/wishlist.service.ts': ['products', 'productVariants', 'productImages', 'users'],
  // An announcement goes to the consenting followers: an account's address and name beside its follows (decision 079): reads.
  'apps/server/src/fans/announcements.service.ts': ['users'],
  // The Audience tab's export names each consenting fan's account (name, country) by address (decision 078): a join, read only.
  'apps/server/src/fans/audience.service.ts': ['users'],
  // The cart reminder looks at unpaid checkouts, their buyer, later orders and drop variants (decision 078): reads.
  'apps/server/src/fans/reminders.service.ts': ['checkouts', 'users', 'orders', 'dropItems', 'productVariants'],
  // Account deletion and the data export reach every area's rows of one account (decision 032).
  'apps/server/src/accounts/account-settings.service.ts': ['checkouts', 'ledgerEntries', 'orderItems', 'orders', 'wallets'],
};

const SCHEMA = /(^|\/)db\/schema(\/|\.ts$|$)/;

function areaOf(rel) {
  const match = /^apps\/server\/src\/([^/]+)\//.exec(rel);
  return match && match[1] !== 'db' && match[1] !== 'seed' ? match[1] : undefined;
}

const rule = {
  meta: { type: 'problem', schema: [], messages: { owner: '{{table}} belongs to the {{owner}} area: call its service instead (each area owns its tables, decision 044).' } },
  create(context) {
    const rel = path.relative(root, context.filename).split(path.sep).join('/');
    const area = areaOf(rel);
    if (!area || /\.test\.ts$/.test(rel)) return {};
    const allowed = new Set(EXCEPTIONS[rel] ?? []);
    return {
      ImportDeclaration(node) {
        if (typeof node.source.value !== 'string' || !SCHEMA.test(node.source.value)) return;
        for (const specifier of node.specifiers) {
          if (specifier.type !== 'ImportSpecifier') continue;
          const table = specifier.imported.name;
          const owner = OWNER.get(table);
          if (owner && owner !== area && !allowed.has(table)) context.report({ node: specifier, messageId: 'owner', data: { table, owner } });
        }
      },
    };
  },
};

// payments/ adapts the providers and records their events; what an event means is the
// checkout's and the orders' (handed in by buildApp). It never imports them (decision 044).
const paymentsRule = {
  meta: { type: 'problem', schema: [], messages: { flow: 'payments/ imports nothing from checkout/ or orders/: take a handler from buildApp instead (decision 044).' } },
  create(context) {
    const rel = path.relative(root, context.filename).split(path.sep).join('/');
    if (!rel.startsWith('apps/server/src/payments/')) return {};
    const check = (node, specifier) => {
      if (typeof specifier === 'string' && /^\.\.\/(checkout|orders)\//.test(specifier)) context.report({ node, messageId: 'flow' });
    };
    return {
      ImportDeclaration: (node) => check(node, node.source.value),
      ExportNamedDeclaration: (node) => node.source && check(node, node.source.value),
      ExportAllDeclaration: (node) => check(node, node.source.value),
      ImportExpression: (node) => node.source.type === 'Literal' && check(node, node.source.value),
    };
  },
};

export default { rules: { 'areas-own-their-tables': rule, 'payments-imports-no-flow': paymentsRule } };
