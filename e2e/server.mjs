// The server the browser tests run against: the built app on a fresh embedded
// database in a temporary DATA_DIR, removed again when the tests end.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');

// Folders of earlier runs that were killed before they could clean up: remove those
// whose server is gone (no live process holds their lock).
for (const name of fs.readdirSync(os.tmpdir())) {
  if (!name.startsWith('storefront-e2e-')) continue;
  const dir = path.join(os.tmpdir(), name);
  let holder = 0;
  try {
    holder = Number(fs.readFileSync(path.join(dir, 'server.lock'), 'utf8'));
  } catch {
    // No lock: the server never started there, or stopped cleanly.
  }
  let alive = false;
  try {
    if (holder > 0) alive = process.kill(holder, 0);
  } catch {
    alive = false;
  }
  const ageMs = Date.now() - fs.statSync(dir).mtimeMs;
  if (!alive && ageMs > 10 * 60 * 1000) fs.rmSync(dir, { recursive: true, force: true });
}
// E2E_DATA_DIR (set by playwright.config.ts) names the directory, so tests can run the
// CLI against this server's database; it must not exist yet, as it is removed at the end.
const dataDir = process.env.E2E_DATA_DIR ? makeNewDir(process.env.E2E_DATA_DIR) : fs.mkdtempSync(path.join(os.tmpdir(), 'storefront-e2e-'));
fs.chmodSync(dataDir, 0o755);
const server = spawn(process.execPath, ['--import', 'tsx', 'apps/server/src/main.ts'], {
  cwd: root,
  stdio: 'inherit',
  env: {
    ...process.env,
    PORT: process.env.E2E_PORT ?? '3199',
    HOST: '127.0.0.1',
    // The address the browser uses: links in mail and the single sign-on issuer name it.
    PUBLIC_URL: `http://127.0.0.1:${process.env.E2E_PORT ?? '3199'}`,
    DATA_DIR: dataDir,
    NODE_ENV: 'development',
    LOG_LEVEL: 'warn',
    ADMIN_EMAILS: process.env.ADMIN_EMAILS ?? 'admin@example.com',
    // Every spec signs in from 127.0.0.1: the per-address limits would stop the suite.
    SIGNIN_RATE_LIMIT: '1000',
    SIGNUP_RATE_LIMIT: '1000',
    // Likewise the per-minute quote and card checkout limits (issue 40 item 7): the specs share demo accounts.
    QUOTE_RATE_LIMIT: '100000',
    QUOTE_ADDRESS_RATE_LIMIT: '100000',
    CHECKOUT_RATE_LIMIT: '100000',
    CHECKOUT_ADDRESS_RATE_LIMIT: '100000',
    // Test switch (refused in production): the run's first card refund is accepted and then
    // fails, as Stripe's refund.failed (refund-retry.spec.ts; no spec before it refunds a card).
    LOCAL_REFUND_FAILURES: process.env.LOCAL_REFUND_FAILURES ?? '1',
    // Drops (drops.spec.ts): a cheap proof-of-work (the browser still solves it in a worker) and
    // admission rounds four times a second, so the spec's short starts are met on time.
    DROP_CHALLENGE_COST: process.env.DROP_CHALLENGE_COST ?? '5000',
    DROP_ADVANCE_MS: process.env.DROP_ADVANCE_MS ?? '250',
    // Notify me and wishlists (decision 076): a stock change heard live starts a round; this is the backstop.
    NOTIFY_ROUND_MS: process.env.NOTIFY_ROUND_MS ?? '3000',
    // The cart reminder (cart-reminder.spec.ts): its hours last 2 seconds, and each instance runs its round that often.
    CART_REMINDER_HOUR_MS: process.env.CART_REMINDER_HOUR_MS ?? '2000',
    // A sister product's page on another origin (firebase-sdk.spec.ts serves it on this port).
    CORS_ORIGINS: process.env.CORS_ORIGINS ?? (process.env.E2E_SISTER_PORT ? `http://127.0.0.1:${process.env.E2E_SISTER_PORT}` : ''),
  },
});
const stop = () => server.kill('SIGTERM');
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
server.on('exit', (code) => {
  fs.rmSync(dataDir, { recursive: true, force: true });
  process.exit(code ?? 0);
});

function makeNewDir(dir) {
  fs.mkdirSync(dir); // throws if it exists: never remove a directory we did not make
  return dir;
}
