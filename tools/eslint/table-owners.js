// Each area owns its tables (issue 23, decision 044; STYLE.md "Each area owns its tables"):
// a service names only its own area's tables and asks another area's service for the rest.
// The owner of a table is the file it is declared in: apps/server/src/db/schema/<area>.ts,
// named as the area's folder (issue 34). A service names a table by importing its drizzle
// object or by writing its SQL name in query text (a `sql` template, a raw query string);
// both are checked. The exceptions are listed per file with the reason; a new one is a
// decision, not a habit.
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');
const SERVER = path.join(root, 'apps/server/src');
const SCHEMA_DIR = path.join(SERVER, 'db/schema');

/** Every table declared in a schema file: its drizzle export, its SQL name, and its area (the file's name). */
export function readOwners(dir = SCHEMA_DIR) {
  const tables = [];
  for (const file of fs.readdirSync(dir).filter((name) => name.endsWith('.ts') && name !== 'index.ts' && !name.endsWith('.test.ts'))) {
    const area = file.slice(0, -'.ts'.length);
    if (!fs.existsSync(path.join(SERVER, area))) throw new Error(`db/schema/${file} names no area: its tables belong to apps/server/src/${area}/, which does not exist.`);
    const text = fs.readFileSync(path.join(dir, file), 'utf8');
    const declared = [...text.matchAll(/^export const (\w+) = pgTable\(\s*'([^']+)'/gm)];
    // A table declared any other way would have no owner: the lint refuses it rather than pass it.
    if (declared.length !== (text.match(/\bpgTable\(/g) ?? []).length)
      throw new Error(`db/schema/${file}: declare each table as \`export const name = pgTable('sql_name', ...)\`.`);
    for (const [, drizzle, sqlName] of declared) tables.push({ drizzle, sql: sqlName, area });
  }
  return tables;
}

const TABLES = readOwners();
/** A table by its drizzle export name, and by its SQL name. */
const BY_EXPORT = new Map(TABLES.map((table) => [table.drizzle, table]));
const BY_SQL = new Map(TABLES.map((table) => [table.sql, table]));

/** The area (folder under apps/server/src) that owns each table, derived from the schema files: area -> drizzle names. */
export const TABLE_OWNERS = TABLES.reduce((owners, table) => ({ ...owners, [table.area]: [...(owners[table.area] ?? []), table.drizzle] }), {});

/**
 * Other areas' tables a file may name, and why (by drizzle name, or SQL name where only its query text
 * names it). Reads only, unless the reason says otherwise.
 */
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
  // Named in SQL text only (issue 34 step 4: the lint reads query text since then); each existed before it.
  // The sales overview's rows (decision 045): orders, refunds and wallet credit in one read each, through
  // the orders' read model's columns; the next step of issue 34 reads them through each area's read model.
  'apps/server/src/admin/sales-figures.service.ts': ['orders', 'orderRefunds', 'ledgerEntries'],
  'apps/server/src/admin/sales.service.ts': ['orders', 'orderItems', 'orderRefunds', 'giftCards', 'products', 'productVariants'],
  // The shop-wide figures of /metrics (decision 040): counts of checkouts, failed refunds, open findings and stock that disagrees; reads.
  'apps/server/src/metrics/metrics.service.ts': ['checkouts', 'needsAttention', 'orderRefunds', 'paymentRefunds', 'productVariants'],
  // The shell's rate limiter counts hits in the accounts' window table: one upsert per hit, and a hit
  // given back. Writes: the table's only ones.
  'apps/server/src/http/rate-limit.ts': ['rateLimitWindows'],
  // One statement tells the shop a variant's stock changed: the products and bundles it belongs to; reads.
  'apps/server/src/live/live.publish.ts': ['products', 'productVariants', 'bundleComponents'],
  // An order's figures leave out the gift cards it sold (decision 053): an EXISTS and a sum, reads.
  'apps/server/src/orders/order-figures.service.ts': ['giftCards'],
  // What a refund's wallet part really took from the ledger (the debit or the capture of its order): a read.
  'apps/server/src/orders/refunds.service.ts': ['ledgerEntries'],
  // A sale's rules and prices: the product's release and artists, the variants' list prices (decision 075): reads.
  'apps/server/src/royalties/ledger.service.ts': ['productArtists', 'releaseArtists', 'releaseProducts', 'products', 'productVariants'],
  // A rule's subject exists and is shown by its name (decision 070): a release, product or artist, reads.
  'apps/server/src/royalties/rules.service.ts': ['releases', 'products', 'artists'],
  // A statement's lines name their release and whether the order line was digital (decision 077): joins, read only.
  'apps/server/src/royalties/statements.service.ts': ['releases', 'orderItems'],
  // A party's portal shows its sales by release and the units of the lines it earned on, as its statements do (decision 080): joins, read only.
  'apps/server/src/royalties/portal.service.ts': ['releases', 'orderItems'],
  // The console's list of invitations names the account that accepted each (decision 080): a read.
  'apps/server/src/royalties/invitations.service.ts': ['users'],
};

const SCHEMA = /(^|\/)db\/schema(\/|\.ts$|$)/;

function areaOf(rel) {
  const match = /^apps\/server\/src\/([^/]+)\//.exec(rel);
  return match && match[1] !== 'db' && match[1] !== 'seed' ? match[1] : undefined;
}

// A table named after FROM, JOIN, UPDATE or INTO (DELETE FROM and INSERT INTO included), quoted or
// not, with or without the public schema. In query text the keywords are matched in any case; in
// any other string only in capitals (a query kept in a variable first), so prose never matches.
const TABLE_IN_SQL = /\b(?:FROM|JOIN|UPDATE|INTO)\s+(?:ONLY\s+)?(?:"?public"?\.)?("?)([A-Za-z_][A-Za-z0-9_]*)\1(?![A-Za-z0-9_(.])/g;
const QUERY_CALLS = new Set(['query', 'execute', 'raw', 'unsafe']);

/** The SQL names of tables in a piece of text. */
export function tablesInSql(text, anyCase) {
  const pattern = new RegExp(TABLE_IN_SQL.source, anyCase ? 'gi' : 'g');
  return [...text.matchAll(pattern)].map((match) => match[2]);
}

const isSqlTag = (tag) => (tag.type === 'Identifier' && tag.name === 'sql') || (tag.type === 'MemberExpression' && tag.object.type === 'Identifier' && tag.object.name === 'sql');

/** Query text for sure: a `sql` template, or the first argument of `.query(...)`, `.execute(...)`, `sql.raw(...)`. */
function isQueryText(node) {
  const parent = node.parent;
  if (parent?.type === 'TaggedTemplateExpression') return isSqlTag(parent.tag);
  if (parent?.type !== 'CallExpression' || parent.arguments[0] !== node) return false;
  const callee = parent.callee;
  return (
    (callee.type === 'MemberExpression' && callee.property.type === 'Identifier' && QUERY_CALLS.has(callee.property.name)) ||
    (callee.type === 'Identifier' && callee.name === 'sql')
  );
}

const rule = {
  meta: {
    type: 'problem',
    schema: [],
    messages: {
      owner: '{{table}} belongs to the {{owner}} area: call its service instead (each area owns its tables, decision 044).',
      ownerSql: 'The SQL text names {{table}}, a table of the {{owner}} area: call its service instead (each area owns its tables, decision 044).',
    },
  },
  create(context) {
    const rel = path.relative(root, context.filename).split(path.sep).join('/');
    const area = areaOf(rel);
    if (!area || /\.test\.ts$/.test(rel)) return {};
    const allowed = new Set(EXCEPTIONS[rel] ?? []);
    const foreign = (table) => table && table.area !== area && !allowed.has(table.drizzle) && !allowed.has(table.sql);
    const checkText = (node, texts) => {
      const anyCase = isQueryText(node);
      for (const text of texts)
        for (const name of tablesInSql(text, anyCase)) {
          const table = BY_SQL.get(name);
          if (foreign(table)) context.report({ node, messageId: 'ownerSql', data: { table: name, owner: table.area } });
        }
    };
    return {
      ImportDeclaration(node) {
        if (typeof node.source.value !== 'string' || !SCHEMA.test(node.source.value)) return;
        for (const specifier of node.specifiers) {
          if (specifier.type !== 'ImportSpecifier') continue;
          const name = specifier.imported.name;
          const table = BY_EXPORT.get(name);
          if (foreign(table)) context.report({ node: specifier, messageId: 'owner', data: { table: name, owner: table.area } });
        }
      },
      Literal(node) {
        if (
          typeof node.value === 'string' &&
          node.parent?.type !== 'ImportDeclaration' &&
          node.parent?.type !== 'ExportNamedDeclaration' &&
          node.parent?.type !== 'ExportAllDeclaration'
        )
          checkText(node, [node.value]);
      },
      TemplateLiteral(node) {
        checkText(
          node,
          node.quasis.map((quasi) => quasi.value.cooked ?? quasi.value.raw),
        );
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
