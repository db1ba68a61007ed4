import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDatabase, type Database } from '../../src/db/client.ts';
import { freePort, startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/db/embedded.ts';
import { startSmtpPeer } from '../smtp.ts';
import { newTestDataDir } from '../temp-data-dirs.ts';
import { repoRoot, runCli, spawnServer, stopAllServers, waitUntilReady, type ServerProcess } from './processes.ts';

/**
 * A rolling upgrade across the newest migrations (issue 40 item 15): the commit before them
 * (taken from git into a folder of its own) runs beside this one on one database. The old
 * version migrates the database to its schema and takes orders; this version then migrates it
 * to the newest schema while the old one keeps running; people sign in, order and are refunded
 * on both, a session made on either works on the other, and nothing needs a person's attention.
 * Migrations are expand-then-contract (docs/operations.md 6.2): if one breaks the version
 * before it, this test fails.
 */
const JOURNAL = 'apps/server/drizzle/meta/_journal.json';
const git = (...args: string[]) => execFileSync('git', args, { cwd: repoRoot, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

const tagsOf = (journal: string) => (JSON.parse(journal) as { entries: { tag: string }[] }).entries.map((entry) => entry.tag);

/**
 * The newest commit on main's line whose migrations are a strict beginning of this checkout's
 * (the version a rolling upgrade to this one starts from), or why there is none here (a
 * shallow clone). A branch's own numbering before its merge renumbered it is passed over.
 */
function previousVersion(): { commit: string; tags: string[] } | { missing: string } {
  try {
    const current = tagsOf(fs.readFileSync(path.join(repoRoot, JOURNAL), 'utf8'));
    for (const commit of git('log', '--first-parent', '--format=%H', '--', JOURNAL).split('\n')) {
      const parent = git('rev-parse', '--verify', `${commit}^1`);
      const tags = tagsOf(git('show', `${parent}:${JOURNAL}`));
      if (tags.length < current.length && tags.every((tag, index) => current[index] === tag)) return { commit: parent, tags };
    }
    return { missing: 'no commit in this history has fewer migrations' };
  } catch (error) {
    return { missing: `git cannot name the commit before the newest migrations (${String(error).split('\n')[0]})` };
  }
}

const previous = previousVersion();
const inCi = process.env.CI === 'true';
if ('missing' in previous) console.warn(`rolling-upgrade.test.ts skipped: ${previous.missing}.`);

/**
 * The previous version's tree: its files from git, this checkout's installed packages (the
 * versions are the same or the test says which is missing), its own workspace packages.
 */
function checkOut(commit: string): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'storefront-previous-'));
  execFileSync('sh', ['-c', `git archive --format=tar ${commit} | tar -x -C "${root}"`], { cwd: repoRoot });
  fs.mkdirSync(path.join(root, 'node_modules'));
  for (const entry of fs.readdirSync(path.join(repoRoot, 'node_modules'))) {
    const target = path.join(root, 'node_modules', entry);
    if (entry === '@storefront') {
      // The workspace's own packages: the previous version's, not this one's.
      fs.mkdirSync(target);
      for (const name of fs.readdirSync(path.join(repoRoot, 'node_modules', entry))) {
        fs.symlinkSync(fs.readlinkSync(path.join(repoRoot, 'node_modules', entry, name)), path.join(target, name));
      }
    } else fs.symlinkSync(path.join(repoRoot, 'node_modules', entry), target);
  }
  for (const app of ['apps/server', 'apps/web']) {
    const modules = path.join(repoRoot, app, 'node_modules');
    if (fs.existsSync(modules)) fs.symlinkSync(modules, path.join(root, app, 'node_modules'));
  }
  // The web build is served, not under test: this checkout's (npm test builds it before this suite).
  const dist = path.join(repoRoot, 'apps/web/dist');
  if (fs.existsSync(dist)) fs.symlinkSync(dist, path.join(root, 'apps/web/dist'));
  return root;
}

const dataDir = newTestDataDir('rolling-upgrade');
let cluster: EmbeddedDatabase;
let database: Database;
let smtp: Awaited<ReturnType<typeof startSmtpPeer>>;
let oldRoot = '';
let oldServer: ServerProcess;
let newServer: ServerProcess;
let settings: Record<string, string>;
let productId = '';
let newTags: string[] = [];
let oldTags: string[] = [];
const PASSWORD = 'upgrade words';
const ADMIN = 'boss@example.org';
const FANS = ['early@example.org', 'late@example.org'];
const contact = (email: string) => ({ name: 'Fan', email, phone: '' });
const shipping = { name: 'Fan', line1: '1 Main St', line2: '', city: 'Springfield', state: 'IL', postal_code: '62701', country: 'US' };

/** A callable on one instance; the answer's data, or the error as thrown text. */
async function call<T>(server: ServerProcess, token: string, name: string, data: unknown): Promise<T> {
  const response = await fetch(`${server.base}/fn/${name}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, 'x-forwarded-for': '198.18.7.1' },
    body: JSON.stringify({ data }),
  });
  const body = (await response.json()) as { data?: T; error?: { message: string } };
  if (!response.ok) throw new Error(`${name} on ${server === oldServer ? 'the old' : 'the new'} version: ${response.status} ${body.error?.message ?? ''}`);
  return body.data as T;
}

async function signUp(server: ServerProcess, email: string, index: number): Promise<void> {
  const response = await fetch(`${server.base}/fn/createAccount`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': `198.18.8.${index + 1}` },
    body: JSON.stringify({ data: { email, username: `Upgrade${index}`, name: `Upgrade ${index}`, password: PASSWORD, confirmPassword: PASSWORD, acceptedTerms: true } }),
  });
  expect(response.status, await response.clone().text()).toBe(200);
}

async function signIn(server: ServerProcess, email: string): Promise<string> {
  const response = await fetch(`${server.base}/api/auth/sign-in/email`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: settings.PUBLIC_URL!, 'x-forwarded-for': '198.18.9.1' },
    body: JSON.stringify({ email, password: PASSWORD }),
  });
  expect(response.status, `sign-in of ${email}: ${await response.clone().text()}`).toBe(200);
  return response.headers.get('set-auth-token')!;
}

async function me(server: ServerProcess, token: string): Promise<string | null> {
  const response = await fetch(`${server.base}/api/me`, { headers: { authorization: `Bearer ${token}` } });
  expect(response.status).toBe(200);
  return ((await response.json()) as { user: { email: string } | null }).user?.email ?? null;
}

/** A wallet-only order of one unit, as a fan's browser places it. */
async function walletOrder(server: ServerProcess, token: string, email: string, checkoutId: string): Promise<string> {
  const items = [{ id: productId, qty: 1 }];
  const quote = await call<Record<string, number>>(server, token, 'quoteCheckout', { items, useWallet: true });
  const placed = await call<{ orderId: string }>(server, token, 'completeWalletOnlyOrderStreetFlavor', { items, contact: contact(email), shipping, quote, checkoutId });
  return placed.orderId;
}

describe.skipIf('missing' in previous && !inCi)('a rolling upgrade across the newest migrations (issue 40 item 15)', () => {
  beforeAll(async () => {
    if ('missing' in previous) throw new Error(`${previous.missing}: CI runs on a full clone.`);
    newTags = tagsOf(fs.readFileSync(path.join(repoRoot, JOURNAL), 'utf8'));
    oldTags = previous.tags;
    oldRoot = checkOut(previous.commit);
    cluster = await startEmbeddedPostgres({ dataDir, ephemeral: true });
    database = connectDatabase(cluster.connectionString, { max: 2 });
    smtp = await startSmtpPeer();
    const [oldPort, newPort] = [await freePort(), await freePort()];
    settings = {
      NODE_ENV: 'production',
      PAYMENT_PROVIDER: 'local',
      ALLOW_TEST_PAYMENTS: '1',
      DATABASE_URL: cluster.connectionString,
      PUBLIC_URL: `http://127.0.0.1:${oldPort}`,
      AUTH_SECRET: 'rolling-upgrade-secret-'.repeat(3),
      SMTP_URL: smtp.url,
      TRUSTED_PROXIES: '127.0.0.1',
    };
    // The old version alone first: it migrates the empty database to its own schema.
    oldServer = await spawnServer(settings, oldPort, oldRoot);
    await waitUntilReady(oldServer);
    for (const [index, email] of [ADMIN, ...FANS].entries()) await signUp(oldServer, email, index);
    await database.pool.query(`UPDATE "user" SET email_verified = true`);
    await database.pool.query(`UPDATE "user" SET role = 'admin' WHERE email = $1`, [ADMIN]);
    for (const email of FANS) expect((await runCli(['grant-credits', email, '200'], settings, oldRoot)).code).toBe(0);
    newServer = await spawnServer({ ...settings }, newPort);
  }, 300_000);

  afterAll(async () => {
    await stopAllServers();
    await smtp?.close();
    await database?.close();
    await cluster?.stop();
    if (oldRoot) fs.rmSync(oldRoot, { recursive: true, force: true });
    fs.rmSync(dataDir, { recursive: true, force: true });
  }, 120_000);

  it('signs in, orders and refunds on the old version and the new side by side, sessions crossing both ways', async () => {
    // The previous version stops at an older migration; this one adds the rest.
    expect(newTags.slice(0, oldTags.length)).toEqual(oldTags);
    expect(newTags.length).toBeGreaterThan(oldTags.length);

    // Before the upgrade: the old version takes an order.
    const oldAdmin = await signIn(oldServer, ADMIN);
    productId = (
      await call<{ id: string }>(oldServer, oldAdmin, 'releaseBizarreProduct', {
        name: 'Upgrade Tee',
        description: 'Tee',
        priceCents: 2500,
        images: ['/content/covers/cover-01.svg'],
      })
    ).id;
    const earlyOnOld = await signIn(oldServer, FANS[0]!);
    const beforeUpgrade = await walletOrder(oldServer, earlyOnOld, FANS[0]!, 'upgrade-before-1');

    // The new version starts (it applies the newest migrations) while the old one serves.
    await waitUntilReady(newServer);
    const applied = await database.pool.query<{ n: string }>('SELECT count(*) AS n FROM drizzle.__drizzle_migrations');
    expect(Number(applied.rows[0]!.n)).toBe(newTags.length);

    // A session from before the upgrade, and one made on each side after it, work on both.
    const lateOnOld = await signIn(oldServer, FANS[1]!);
    const earlyOnNew = await signIn(newServer, FANS[0]!);
    for (const server of [oldServer, newServer]) {
      expect(await me(server, earlyOnOld)).toBe(FANS[0]);
      expect(await me(server, lateOnOld)).toBe(FANS[1]);
      expect(await me(server, earlyOnNew)).toBe(FANS[0]);
    }

    // Orders on both after the upgrade, each listed by the other.
    const onOld = await walletOrder(oldServer, lateOnOld, FANS[1]!, 'upgrade-after-old');
    const onNew = await walletOrder(newServer, earlyOnNew, FANS[0]!, 'upgrade-after-new');
    const mine = await call<{ items: { id: string }[] }>(oldServer, earlyOnNew, 'listMyOrders', null);
    expect(mine.items.map((order) => order.id).sort()).toEqual([beforeUpgrade, onNew].sort());
    const theirs = await call<{ items: { id: string }[] }>(newServer, lateOnOld, 'listMyOrders', null);
    expect(theirs.items.map((order) => order.id)).toEqual([onOld]);

    // Refunds: the new version refunds the old one's orders, the old one the new one's.
    const newAdmin = await signIn(newServer, ADMIN);
    await call(newServer, newAdmin, 'refundOrder', { orderId: beforeUpgrade, idempotencyKey: 'upgrade-refund-1' });
    await call(newServer, oldAdmin, 'refundOrder', { orderId: onOld, idempotencyKey: 'upgrade-refund-2' });
    await call(oldServer, newAdmin, 'refundOrder', { orderId: onNew, idempotencyKey: 'upgrade-refund-3' });
    const refunded = await database.pool.query<{ id: string; refund_status: string }>('SELECT id, refund_status FROM "order" ORDER BY id');
    expect(refunded.rows.map((row) => row.refund_status)).toEqual(['refunded', 'refunded', 'refunded']);

    // The wallets tie out: 200 granted, every order refunded to the wallet it was paid from.
    for (const token of [earlyOnNew, lateOnOld]) expect((await call<{ balanceCents: number }>(newServer, token, 'getWallet', null)).balanceCents).toBe(20_000);

    // Nothing for a person to look at, on either version.
    for (const [server, token] of [
      [oldServer, oldAdmin],
      [newServer, newAdmin],
    ] as const) {
      expect((await call<{ items: { kind: string; detail: string }[] }>(server, token, 'listNeedsAttention', { open: true })).items).toEqual([]);
    }
  }, 240_000);
});
