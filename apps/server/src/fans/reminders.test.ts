import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../accounts/accounts.service.ts';
import { startTestApp, TEST_PASSWORD, type TestApp } from '../../test/app.ts';
import { startSmtpPeer } from '../../test/smtp.ts';
import { releaseProduct } from '../catalog/catalog.service.ts';
import { checkoutReminders, checkouts, dropItems, drops } from '../db/schema/index.ts';
import type { CheckoutLine } from '../db/schema/checkout.ts';
import { startJobQueue, type JobQueue } from '../jobs/queue.ts';
import { giveConsent } from './consent.service.ts';
import { remindUnpaidCheckouts, type ReminderDeps } from './reminders.service.ts';

/**
 * The cart reminder (issue 37 part 7, decision 078): off by default; turned on with its hours,
 * a checkout left unpaid that long is reminded once, by a mail the real SMTP peer receives with
 * List-Unsubscribe, whose signed link rebuilds the cart; never without consent, never after the
 * fan bought, never for a drop's products, never twice.
 */
let shop: TestApp;
let smtp: Awaited<ReturnType<typeof startSmtpPeer>>;
let jobs: JobQueue;
let deps: ReminderDeps;
let adminToken = '';
const ids: Record<string, string> = {};
let teeId = '';
let dropTeeId = '';

beforeAll(async () => {
  smtp = await startSmtpPeer();
  shop = await startTestApp({ config: { env: { SMTP_URL: smtp.url, SIGNUP_RATE_LIMIT: '1000' } } });
  await createAccount(
    shop.db,
    shop.config,
    { email: 'boss@example.org', username: 'boss', name: 'Boss', password: TEST_PASSWORD, confirmPassword: TEST_PASSWORD, acceptedTerms: true },
    { emailVerified: true, role: 'admin' },
  );
  adminToken = await shop.signIn('boss@example.org');
  for (const name of ['fan', 'quiet', 'buyer', 'dropfan', 'again']) {
    ids[name] = await shop.account(name);
    if (name !== 'quiet') await giveConsent(shop.db, { email: `${name}@example.org`, userId: ids[name], source: 'account', page: '/account' });
  }
  teeId = await releaseProduct(shop.db, { name: 'Reminder Tee', description: 'Tee', priceCents: 1500, images: ['/content/covers/cover-01.svg'] });
  dropTeeId = await releaseProduct(shop.db, { name: 'Drop Tee', description: 'Tee', priceCents: 4000, images: ['/content/covers/cover-01.svg'] });
  const now = Date.now();
  await shop.db.insert(drops).values({
    id: 'd-reminder',
    slug: 'reminder-drop',
    name: 'Reminder drop',
    startsAt: new Date(now + 86_400_000),
    queueOpensAt: new Date(now + 3_600_000),
    perCustomerLimit: 1,
    admissionsPerMinute: 10,
    maxAdmitted: 10,
    checkoutWindowSeconds: 600,
    seed: 'seed',
    seedHash: 'hash',
  });
  await shop.db.insert(dropItems).values({ dropId: 'd-reminder', variantId: dropTeeId });
  jobs = await startJobQueue(shop.database.pool, () => undefined);
  deps = { db: shop.db, jobs, publicUrl: shop.baseUrl, secret: shop.config.AUTH_SECRET };
}, 60_000);

afterAll(async () => {
  await jobs?.stop();
  await shop?.close();
  await smtp?.close();
});

const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3_600_000);

async function checkout(user: string, items: CheckoutLine[], createdAt: Date, status: 'pending' | 'expired' | 'paid' = 'expired'): Promise<string> {
  const id = `co_${randomUUID()}`;
  const subtotal = items.reduce((sum, item) => sum + item.unitCents * item.qty, 0);
  await shop.db.insert(checkouts).values({
    id,
    userId: ids[user]!,
    status,
    provider: 'local',
    items,
    contact: { name: user, email: `${user}@example.org`, phone: '' },
    shipping: {},
    subtotalCents: subtotal,
    shippingCents: 0,
    taxCents: 0,
    walletHeldCents: 0,
    amountDueCents: subtotal,
    chargeCents: subtotal,
    expiresAt: new Date(createdAt.getTime() + 30 * 60_000),
    createdAt,
  });
  return id;
}

const tee = (qty: number): CheckoutLine => ({ id: teeId, name: 'Reminder Tee', qty, unitCents: 1500 });
/**
 * Runs a round and answers what was decided for each checkout. The app's own round (the job
 * queue's, every minute) may claim them first, or hold the lock while this one runs: the
 * decisions are read from the table, waiting until the checkouts expected are claimed.
 */
async function round(expected: string[], now?: Date): Promise<Map<string, string>> {
  for (let attempt = 0; ; attempt++) {
    await remindUnpaidCheckouts(deps, now);
    const rows = await shop.db.select().from(checkoutReminders);
    const decided = new Map(rows.map((row) => [row.checkoutId, row.reason]));
    if (expected.every((id) => decided.has(id)) || attempt > 30) return decided;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const reminderMails = (to: string) => smtp.mailsTo(to).filter((mail) => mail.decoded.includes('You left something in your cart'));
const admin = () => shop.functions(() => adminToken);

describe('the cart reminder', () => {
  it('is off by default: nothing is looked at, nobody is mailed', async () => {
    expect(await admin().call('getAudienceSettings', null)).toEqual({ cartReminderHours: null });
    await checkout('fan', [tee(1)], hoursAgo(30));
    expect((await remindUnpaidCheckouts(deps)).size).toBe(0);
    expect((await round([])).size).toBe(0);
  });

  it('once on, reminds a consenting fan once, by a marketing mail whose signed link rebuilds the cart; never without consent, after a purchase or for a drop', async () => {
    expect(await admin().call('saveAudienceSettings', { cartReminderHours: 24 })).toEqual({ cartReminderHours: 24 });
    // The fan's older checkout (made at 30 h) is followed by this one: only the latest is reminded.
    const fans = await checkout('fan', [tee(2)], hoursAgo(25));
    const quiet = await checkout('quiet', [tee(1)], hoursAgo(25));
    const bought = await checkout('buyer', [tee(1)], hoursAgo(26));
    await checkout('buyer', [tee(1)], hoursAgo(25.5), 'paid');
    const dropped = await checkout('dropfan', [tee(1), { id: dropTeeId, name: 'Drop Tee', qty: 1, unitCents: 4000 }], hoursAgo(25));
    const recent = await checkout('again', [tee(1)], hoursAgo(2));

    const verdicts = await round([fans, quiet, bought, dropped]);
    expect(verdicts.get(fans)).toBe('sent');
    expect(verdicts.get(quiet)).toBe('no-consent');
    expect(verdicts.get(bought)).toBe('bought');
    expect(verdicts.get(dropped)).toBe('drop');
    expect(verdicts.has(recent)).toBe(false);
    expect([...verdicts.values()].filter((verdict) => verdict === 'sent')).toHaveLength(1);
    // The fan's older checkout (30 h) is passed over for this later one.
    expect([...verdicts.values()]).toContain('newer-checkout');

    const mail = await smtp.waitForText('fan@example.org', 'You left something in your cart');
    const headers = mail.raw.replace(/\r\n[ \t]+/g, ' ');
    expect(headers).toMatch(/List-Unsubscribe: +<http[^>]+\/news\/leave\?token=/);
    expect(headers).toContain('List-Unsubscribe-Post: List-Unsubscribe=One-Click');
    expect(mail.decoded).toContain('Reminder Tee, quantity 2, $15.00 each');
    const link = /https?:\/\/[^\s"<>]+\/cart\/restore\?token=([^\s"<>&]+)/.exec(mail.decoded);
    expect(link).not.toBeNull();
    const restored = await shop.functions().call('restoreCart', { token: decodeURIComponent(link![1]!) });
    expect(restored).toMatchObject({ valid: true, missing: 0, lines: [{ lineId: teeId, title: 'Reminder Tee', priceCents: 1500, qty: 2 }] });
    // A forged or altered link rebuilds nothing.
    expect(await shop.functions().call('restoreCart', { token: `${decodeURIComponent(link![1]!)}x` })).toEqual({ lines: [], missing: 0, valid: false });

    // Once: the next rounds find nothing, and the fan got one mail.
    expect((await remindUnpaidCheckouts(deps)).size).toBe(0);
    expect((await remindUnpaidCheckouts(deps, new Date(Date.now() + 3_600_000))).has(fans)).toBe(false);
    expect((await shop.db.select().from(checkoutReminders).where(eq(checkoutReminders.checkoutId, fans))).length).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(reminderMails('fan@example.org')).toHaveLength(1);
    for (const nobody of ['quiet@example.org', 'buyer@example.org', 'dropfan@example.org', 'again@example.org']) expect(reminderMails(nobody)).toHaveLength(0);
    const rows = await shop.db.select().from(checkoutReminders).where(eq(checkoutReminders.checkoutId, fans));
    expect(rows).toEqual([expect.objectContaining({ sent: true, reason: 'sent' })]);
  }, 60_000);

  it('reminds at the hours set, and stops when turned off', async () => {
    expect(await admin().call('saveAudienceSettings', { cartReminderHours: 1 })).toEqual({ cartReminderHours: 1 });
    const due = await checkout('again', [tee(3)], hoursAgo(1.5));
    expect((await round([due])).get(due)).toBe('sent');
    await smtp.waitForText('again@example.org', 'Reminder Tee, quantity 3');
    await admin().call('saveAudienceSettings', { cartReminderHours: null });
    const later = await checkout('again', [tee(1)], hoursAgo(1.2));
    expect((await round([])).has(later)).toBe(false);
  }, 30_000);

  it('refuses hours outside 1 to 720, and only admins set them', async () => {
    await expect(admin().call('saveAudienceSettings', { cartReminderHours: 0 })).rejects.toThrow('Give the hours as a whole number from 1 to 720.');
    await expect(admin().call('saveAudienceSettings', { cartReminderHours: 721 })).rejects.toThrow('Give the hours as a whole number from 1 to 720.');
    const fanToken = await shop.signIn('fan@example.org');
    await expect(shop.functions(() => fanToken).call('saveAudienceSettings', { cartReminderHours: 5 })).rejects.toThrow();
    expect(await admin().call('getAudienceSettings', null)).toEqual({ cartReminderHours: null });
  });
});
