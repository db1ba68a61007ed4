/**
 * The server's import rules (issue 34, decision 065), checked by `npm run lint`. Imports are
 * read as TypeScript writes them, type-only ones included (tsPreCompilationDeps); test files
 * are left out: a test may reach any area it exercises.
 */

/** The shell: the app's plumbing, which every area may use and which knows no area. */
const SHELL = '^apps/server/src/(http|db|jobs|mail)/|^apps/server/src/(config|errors)\\.ts$';
const SHELL_FOLDERS = '^apps/server/src/(http|db|jobs|mail)/';

/**
 * The pairs of folders under apps/server/src that may import each other, each with why the
 * two areas are one domain tie rather than a layer; tools/deps/folder-ties.mjs fails on any
 * other pair, on a pair with the shell, and on more than MAX_FOLDER_TIES of them.
 */
const FOLDER_TIES = {
  'accounts-live': "a session's stream ends with the session (live asks accounts when it expires), and an account's changes are announced live",
  'accounts-oidc':
    "single sign-on signs the shop's accounts in to the sister products: an account's sign-out or deletion revokes its grants, and an exchange mints an account's session",
  'accounts-drops': "an account's notify-me and waitlist entries go with its deletion and into its data export, and a waitlist mails the account's address",
  'accounts-wallet': 'the sample shopper is given wallet credit, and the sample wallet entries belong to the sample accounts (the seeders)',
  'catalog-orders': "an order line is a catalogue variant: the console shows a product's units sold, and a refund prices its lines by the products' categories",
  'catalog-preorders': "a preorder is a product's release date: the catalogue's edits reschedule it, and the release job reads the products it releases",
  'digital-storage': "a release's masters and encodings are stored objects: digital stores and deletes them, storage probes an uploaded master with digital's encoder",
  'discounts-orders': "a code's use is tied to its order: a refund gives back the order's discount by its code, and the code's report reads whether its orders were refunded",
  'service-wallet': "the sister products' writes are wallet entries written in one transaction (decision 010); the sample wallet is written through them",
};
const MAX_FOLDER_TIES = 11;

const config = {
  forbidden: [
    {
      name: 'shell-imports-no-area',
      comment: 'http/, db/, jobs/, mail/, config.ts and errors.ts import no area: app.ts hands each area what it needs (decision 065).',
      severity: 'error',
      from: { path: SHELL },
      to: { path: '^apps/server/src/[^/]+/', pathNot: SHELL_FOLDERS },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.test\\.ts$' },
  },
};

module.exports = config;
// Not a dependency-cruiser option (its config takes no other keys): read by tools/deps/folder-ties.mjs.
Object.defineProperties(module.exports, { FOLDER_TIES: { value: FOLDER_TIES }, MAX_FOLDER_TIES: { value: MAX_FOLDER_TIES }, SHELL: { value: SHELL } });
