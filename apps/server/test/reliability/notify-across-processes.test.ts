import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../src/accounts/accounts.service.ts';
import { getProduct, releaseProduct } from '../../src/catalog/catalog.service.ts';
import { connectDatabase, type Database } from '../../src/db/client.ts';
import { freePort, startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/db/embedded.ts';
import { runMigrations } from '../../src/db/migrate.ts';
import { testConfig } from '../database.ts';
import { startSmtpPeer } from '../smtp.ts';
import { newTestDataDir } from '../temp-data-dirs.ts';
import { signInAll, type Shopper } from './money-load.ts';
import { poll, spawnServer, stopAllServers, waitUntilReady, type ServerProcess } from './processes.ts';

/**
 * Notify me across two instances (issue 37 part 4, "Done when", decision 076): two server
 * processes on one Postgres, each running waitlist rounds on its timer and on the stock
 * changes it hears. Fans ask through either instance, signed in or by a confirmed address;
 * the label restocks two variants through both instances at once, twice (stock is set, not
 * added: both set the same count). The real SMTP peer receives exactly one "back" mail per unit
 * that came back, to the fans first in ask order, and no fan twice.
 */
const dataDir = newTestDataDir('notify-processes');
let cluster: EmbeddedDatabase;
let database: Database;
let smtp: Awaited<ReturnType<typeof startSmtpPeer>>;
let servers: ServerProcess[];
let label: Shopper;
const fans: Shopper[] = [];
const variants: Record<'x' | 'y', string> = { x: '', y: '' };

beforeAll(async () => {
  cluster = await startEmbeddedPostgres({ dataDir, ephemeral: true });
  database = connectDatabase(cluster.connectionString, { max: 4 });
  await runMigrations(database.pool);
  const emails = ['label@example.org', ...Array.from({ length: 10 }, (_, i) => `fan${i}@example.org`)];
  for (const [index, email] of emails.entries()) {
    await createAccount(
      database.db,
      testConfig(),
      { email, username: email.split('@')[0]!, name: email.split('@')[0]!, password: 'pass words', confirmPassword: 'pass words', acceptedTerms: true },
      { emailVerified: true, role: index === 0 ? 'admin' : 'user', allowReservedUsername: true },
    );
  }
  for (const key of ['x', 'y'] as const) {
    const id = await releaseProduct(database.db, {
      name: `Back Tee ${key.toUpperCase()}`,
      description: 'Tee',
      priceCents: 2000,
      images: ['/content/covers/cover-01.svg'],
      variants: [{ options: [], sku: `BT-${key}`, priceCents: null, stock: 0, perCustomerLimit: null }],
    });
    variants[key] = (await getProduct(database.db, id, { includeInactive: false })).variants[0]!.id;
  }
  smtp = await startSmtpPeer();
  const ports = [await freePort(), await freePort()];
  const publicUrl = `http://127.0.0.1:${ports[0]}`;
  const settings = {
    NODE_ENV: 'production',
    PAYMENT_PROVIDER: 'local',
    ALLOW_TEST_PAYMENTS: '1',
    DATABASE_URL: cluster.connectionString,
    PUBLIC_URL: publicUrl,
    AUTH_SECRET: 'notify-processes-secret-'.repeat(3),
    SMTP_URL: smtp.url,
    TRUSTED_PROXIES: '127.0.0.1',
    // Both instances run a round every second besides the ones a stock change starts: any extra offer would show.
    NOTIFY_ROUND_MS: '1000',
  };
  servers = await Promise.all(ports.map((port) => spawnServer(settings, port)));
  await Promise.all(servers.map(waitUntilReady));
  const signedIn = await signInAll(servers[0]!.base, publicUrl, emails);
  label = signedIn[0]!;
  fans.push(...signedIn.slice(1));
}, 240_000);

afterAll(async () => {
  await stopAllServers();
  await smtp?.close();
  await database?.close();
  await cluster?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
}, 120_000);

async function call<T>(server: ServerProcess, who: Shopper | null, name: string, data: unknown): Promise<T> {
  const response = await fetch(`${server.base}/fn/${name}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(who ? { authorization: `Bearer ${who.token}`, 'x-forwarded-for': who.ip } : { 'x-forwarded-for': '198.51.100.7' }) },
    body: JSON.stringify({ data }),
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${name} answered ${response.status}: ${text}`);
  return (JSON.parse(text) as { data: T }).data;
}

/** A signed-out ask through `asked`, confirmed through `confirmed` with the mailed link. */
async function askByEmail(asked: ServerProcess, confirmed: ServerProcess, variantId: string, email: string): Promise<void> {
  await call(asked, null, 'notifyMeByEmail', { variantId, email });
  const mail = await smtp.waitForText(email, '/notify/confirm?token=');
  const token = /\/notify\/confirm\?token=([^\s"<>&]+)/.exec(mail.decoded)![1]!;
  await call(confirmed, null, 'confirmNotifyMe', { token: decodeURIComponent(token) });
}

interface Entry {
  who: string;
  status: string;
}
async function listOf(variantId: string): Promise<Entry[]> {
  const { rows } = await database.pool.query<Entry>(
    `SELECT coalesce(w.email, u.email) AS who, w.status FROM variant_waitlist w LEFT JOIN "user" u ON u.id = w.user_id WHERE w.variant_id = $1 ORDER BY w.seq`,
    [variantId],
  );
  return rows;
}
async function stockOf(variantId: string): Promise<number> {
  const { rows } = await database.pool.query<{ stock: number }>('SELECT stock FROM product_variant WHERE id = $1', [variantId]);
  return rows[0]!.stock;
}
/** "Back" mails received per address (a confirmation mail is not one). */
function backMails(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const mail of smtp.mails) if (mail.decoded.includes('Leave this list')) for (const to of mail.to) counts.set(to, (counts.get(to) ?? 0) + 1);
  return counts;
}

/** Waits until every variant has as many offers as units in stock (or fans), then a few more rounds on both instances. */
async function settle(): Promise<void> {
  await poll(
    'the offers and their mails',
    async () => {
      for (const variantId of Object.values(variants)) {
        const list = await listOf(variantId);
        const offered = list.filter((entry) => entry.status === 'offered').length;
        if (offered !== Math.min(await stockOf(variantId), list.length)) return undefined;
      }
      const told = [...backMails().values()].reduce((sum, n) => sum + n, 0);
      const offers = (await Promise.all(Object.values(variants).map(listOf))).flat().filter((entry) => entry.status === 'offered').length;
      return told === offers ? true : undefined;
    },
    { timeoutMs: 30_000 },
  ).catch(async (error: unknown) => {
    const lists = await Promise.all(Object.values(variants).map(async (variantId) => ({ stock: await stockOf(variantId), list: await listOf(variantId) })));
    throw new Error(`${String(error)}: ${JSON.stringify({ lists, mails: [...backMails()] })}\n${servers.map((server) => server.output().slice(-3000)).join('\n---\n')}`);
  });
  await new Promise((resolve) => setTimeout(resolve, 3500));
}

function checkTold(): void {
  const mails = backMails();
  for (const [to, count] of mails) expect(count, `back mails to ${to}`).toBe(1);
}

describe('notify me across two instances', () => {
  it('concurrent restocks through both instances tell exactly one fan per unit, in ask order, once each', async () => {
    const [a, b] = servers as [ServerProcess, ServerProcess];
    const f = (i: number) => fans[i]!;
    // In ask order, through either instance; two addresses without an account among them.
    await call(a, f(0), 'joinWaitlist', { variantId: variants.x });
    await askByEmail(b, a, variants.x, 'walker@example.net');
    await call(b, f(1), 'joinWaitlist', { variantId: variants.x });
    await call(a, f(2), 'joinWaitlist', { variantId: variants.x });
    await askByEmail(a, b, variants.x, 'rider@example.net');
    for (const [i, server] of [
      [3, a],
      [4, b],
      [5, a],
    ] as const)
      await call(server, f(i), 'joinWaitlist', { variantId: variants.x });
    for (const [i, server] of [
      [6, b],
      [7, a],
      [8, b],
      [9, a],
    ] as const)
      await call(server, f(i), 'joinWaitlist', { variantId: variants.y });
    const orderX = [
      'fan0@example.org',
      'walker@example.net',
      'fan1@example.org',
      'fan2@example.org',
      'rider@example.net',
      'fan3@example.org',
      'fan4@example.org',
      'fan5@example.org',
    ];
    const orderY = ['fan6@example.org', 'fan7@example.org', 'fan8@example.org', 'fan9@example.org'];
    expect((await listOf(variants.x)).map((entry) => entry.who)).toEqual(orderX);

    const restock = (server: ServerProcess, variantId: string, stock: number) => call(server, label, 'setVariantStock', { variantId, stock, reason: 'restock' });
    const expectOrder = async () => {
      for (const [variantId, order] of [
        [variants.x, orderX],
        [variants.y, orderY],
      ] as const) {
        const stock = await stockOf(variantId);
        const list = await listOf(variantId);
        const told = list.filter((entry) => entry.status === 'offered').map((entry) => entry.who);
        expect(told).toEqual(order.slice(0, stock));
        expect(list.filter((entry) => entry.status === 'waiting').map((entry) => entry.who)).toEqual(order.slice(stock));
        const mails = backMails();
        for (const who of order) expect(mails.get(who) ?? 0, who).toBe(told.includes(who) ? 1 : 0);
      }
      checkTold();
    };

    // Round one: both instances restock both variants at the same moment (stock is set, not
    // added, so both set the same count: the units that came back are known).
    await Promise.all([restock(a, variants.x, 2), restock(b, variants.x, 2), restock(b, variants.y, 1), restock(a, variants.y, 1)]);
    await settle();
    await expectOrder();
    const firstX = await stockOf(variants.x);
    const firstY = await stockOf(variants.y);

    // Round two: more units, again through both at once.
    await Promise.all([restock(b, variants.x, firstX + 3), restock(a, variants.x, firstX + 3), restock(a, variants.y, firstY + 1), restock(b, variants.y, firstY + 1)]);
    await settle();
    await expectOrder();
    expect((await listOf(variants.x)).filter((entry) => entry.status === 'offered')).toHaveLength(5);
    expect((await listOf(variants.y)).filter((entry) => entry.status === 'offered')).toHaveLength(2);
    // Every "back" mail links straight to the product.
    for (const mail of smtp.mails.filter((candidate) => candidate.decoded.includes('Leave this list'))) expect(mail.decoded).toMatch(/\/product\/p_[\w-]+/);
  });
});
