import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FunctionInput } from '@storefront/domain/contracts/index.ts';
import { ANNOUNCEMENT_MESSAGES } from '@storefront/domain/contracts/announcements.ts';
import { quotedTotals } from '@storefront/domain/pricing.ts';
import type { FunctionsError } from '@storefront/sdk/callable.ts';
import { startTestApp, type TestApp } from '../../test/app.ts';
import { seedArtist, seedFollowers } from '../../test/fans.ts';
import { startSmtpPeer, type ReceivedMail } from '../../test/smtp.ts';
import { releaseProduct } from '../catalog/catalog.service.ts';
import { getProduct } from '../catalog/catalog.service.ts';
import { grantCredits } from '../wallet/wallet.commands.ts';
import { announceAutomatically } from './announcement-automation.ts';

/**
 * Announcements (issue 37 part 3, decision 079) on a real Postgres and a real SMTP peer that
 * takes 40 ms a mail: the consenting followers get one mail each with RFC 8058's one-click
 * unsubscribe, which works with no cookie and keeps the fan out of the next one; pause, resume
 * and cancel; a claim whose sender is gone becomes unknown and is never sent; a receipt is
 * delivered while an announcement is sending (its own queue and SMTP pool).
 */
let shop: TestApp;
let smtp: Awaited<ReturnType<typeof startSmtpPeer>>;
let adminToken = '';
let artistId = 0;
let productId = '';
const fanTokens: Record<string, string> = {};

beforeAll(async () => {
  smtp = await startSmtpPeer({ delayMs: 40 });
  shop = await startTestApp({ config: { env: { SMTP_URL: smtp.url, SIGNUP_RATE_LIMIT: '1000', MAIL_CONCURRENCY: '2', ANNOUNCE_ROUND_MS: '200', NOTIFY_ROUND_MS: '600000' } } });
  await shop.account('boss');
  await shop.db.execute(`UPDATE "user" SET role = 'admin' WHERE email = 'boss@example.org'`);
  adminToken = await shop.signIn('boss@example.org');
  await shop.account('buyer');
  fanTokens.buyer = await shop.signIn('buyer@example.org');
  artistId = await seedArtist(shop.database.pool, 'Low Tone');
  productId = await releaseProduct(shop.db, { name: 'Low Tone EP', description: 'Music', priceCents: 700, images: ['/content/covers/cover-02.svg'] });
  await shop.db.execute(`UPDATE product SET digital = true WHERE id = '${productId}'`);
}, 240_000);

afterAll(async () => {
  await shop?.close();
  await smtp?.close();
});

const admin = () => shop.functions(() => adminToken);
const pool = () => shop.database.pool;

async function draft(input: Partial<FunctionInput<'saveAnnouncement'>> = {}) {
  return admin().call('saveAnnouncement', { subject: 'New record out', body: 'It is out.\n\nListen now.', image: '', link: null, toLabel: true, artistIds: [], ...input });
}

async function waitFor<T>(check: () => Promise<T | undefined> | T | undefined, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const mailsWith = (subject: string) => smtp.mails.filter((mail) => mail.raw.includes(`Subject: ${subject}`));
const recipientsOf = (subject: string) => mailsWith(subject).flatMap((mail) => mail.to);
const report = (id: number) => admin().call('getAnnouncement', { id });
const finished = (id: number) => waitFor(async () => ((await report(id)).status === 'sent' ? true : undefined), `announcement ${id} to finish`);

/** The List-Unsubscribe URL of a received mail (headers may fold). */
function unsubscribeUrl(mail: ReceivedMail): string {
  const headers = mail.raw.split(/\r?\n\r?\n/)[0]!.replace(/\r?\n[ \t]+/g, ' ');
  expect(headers).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click$/im);
  return /^List-Unsubscribe: <([^>]+)>/im.exec(headers)![1]!;
}

describe('announcements', () => {
  it('go to the consenting followers of the label or the chosen artists, once each; one-click unsubscribe with no cookie keeps a fan out of the next', async () => {
    const label = await seedFollowers(pool(), { prefix: 'lab', count: 5 });
    const noConsent = await seedFollowers(pool(), { prefix: 'quiet', count: 2, consent: false });
    const artistFans = await seedFollowers(pool(), { prefix: 'art', count: 3, artistId });
    // lab1 follows the artist too: one recipient, one mail.
    await pool().query(`INSERT INTO fan_follow (user_id, artist_id, source) VALUES ('u-lab1', $1, 'button')`, [artistId]);
    // The label's news asked for without an account (the public form, confirmed).
    await pool().query(`INSERT INTO marketing_consent (email, status, source, page, given_at) VALUES ('walker@example.net', 'given', 'form', '/artists', now())`);

    const image = await draft({ image: 'https://elsewhere.example/cover.png' }).catch((error: FunctionsError) => error);
    expect((image as FunctionsError).message).toBe(ANNOUNCEMENT_MESSAGES.image);
    const created = await draft({ subject: 'Label news', link: { kind: 'product', id: productId }, image: '/content/covers/cover-01.svg' });
    expect(created.link).toEqual({ kind: 'product', id: productId, title: 'Low Tone EP', path: `/product/${productId}` });
    expect(created.audienceSize).toBe(6);
    expect((await draft({ toLabel: false, artistIds: [artistId] })).audienceSize).toBe(4);

    // The preview and the test go to the caller only.
    const preview = await admin().call('previewAnnouncement', { id: created.id });
    expect(preview.html).toContain(`/product/${productId}`);
    expect(preview.html).toContain('/content/covers/cover-01.svg');
    await admin().call('sendAnnouncementTest', { id: created.id });
    const test = await smtp.waitForText('boss@example.org', 'Low Tone EP');
    expect(test.raw).toContain('Subject: [Test] Label news');

    await admin().call('sendAnnouncement', { id: created.id });
    await finished(created.id);
    const expected = [...label, 'walker@example.net'].sort();
    expect(recipientsOf('Label news').sort()).toEqual(expected);
    for (const fan of noConsent) expect(smtp.mailsTo(fan)).toEqual([]);
    const first = await report(created.id);
    expect(first.counts).toMatchObject({ total: 6, sent: 6, failed: 0, bounced: 0, unknown: 0, queued: 0, sending: 0 });
    await expect(admin().call('sendAnnouncement', { id: created.id })).rejects.toMatchObject({ message: ANNOUNCEMENT_MESSAGES.notSendable });

    // One-click (RFC 8058): a POST with no cookie ends lab2's consent.
    const leave = await fetch(unsubscribeUrl(smtp.mailsTo('lab2@example.org')[0]!), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    });
    expect(leave.status).toBe(200);
    const { rows } = await pool().query(`SELECT status, withdrawn_by FROM marketing_consent WHERE email = 'lab2@example.org'`);
    expect(rows).toEqual([{ status: 'withdrawn', withdrawn_by: 'one-click' }]);
    expect((await report(created.id)).counts.unsubscribedSince).toBe(1);

    const both = await draft({ subject: 'Both news', artistIds: [artistId] });
    await admin().call('sendAnnouncement', { id: both.id });
    await finished(both.id);
    expect(recipientsOf('Both news').sort()).toEqual([...label.filter((fan) => fan !== 'lab2@example.org'), ...artistFans, 'walker@example.net'].sort());
  });

  it('pauses, resumes and cancels; a claim whose sender is gone is unknown and never sent', async () => {
    const fans = await seedFollowers(pool(), { prefix: 'pause', count: 60, artistId });
    const paused = await draft({ subject: 'Paused news', toLabel: false, artistIds: [artistId] });
    const total = (await admin().call('sendAnnouncement', { id: paused.id })).counts.total;
    expect(total).toBeGreaterThanOrEqual(60);
    await waitFor(() => (mailsWith('Paused news').length >= 6 ? true : undefined), 'the first mails');
    await admin().call('pauseAnnouncement', { id: paused.id });
    // What was in flight (at most MAIL_CONCURRENCY) arrives; then nothing more.
    await new Promise((resolve) => setTimeout(resolve, 800));
    const atPause = mailsWith('Paused news').length;
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(mailsWith('Paused news').length).toBe(atPause);
    const held = await report(paused.id);
    expect(held.status).toBe('paused');
    expect(held.counts.queued).toBe(total - atPause);
    expect(held.counts.sent).toBe(atPause);

    // A claim made by a sender that is gone (its key held by no session): unknown, not sent.
    const orphan = fans[59]!;
    await pool().query(`UPDATE announcement_recipient SET state = 'sending', claimed_by = '7', claimed_at = now() WHERE announcement_id = $1 AND email = $2 AND state = 'queued'`, [
      paused.id,
      orphan,
    ]);
    await admin().call('resumeAnnouncement', { id: paused.id });
    await finished(paused.id);
    const done = await report(paused.id);
    expect(done.counts).toMatchObject({ sent: total - 1, unknown: 1, queued: 0, sending: 0 });
    expect(done.unknown.map((row) => row.email)).toEqual([orphan]);
    expect(smtp.mailsTo(orphan).filter((mail) => mail.raw.includes('Subject: Paused news'))).toEqual([]);
    expect(new Set(recipientsOf('Paused news')).size).toBe(recipientsOf('Paused news').length);

    const cancelled = await draft({ subject: 'Cancelled news', toLabel: false, artistIds: [artistId] });
    await admin().call('sendAnnouncement', { id: cancelled.id });
    await waitFor(() => (mailsWith('Cancelled news').length >= 4 ? true : undefined), 'the first mails');
    await admin().call('cancelAnnouncement', { id: cancelled.id });
    await new Promise((resolve) => setTimeout(resolve, 800));
    const atCancel = mailsWith('Cancelled news').length;
    const after = await report(cancelled.id);
    expect(after.status).toBe('cancelled');
    expect(after.counts.queued).toBe(0);
    expect(after.counts.sent).toBe(atCancel);
    expect(after.counts.skipped).toBe(after.counts.total - atCancel);
    await admin()
      .call('resumeAnnouncement', { id: cancelled.id })
      .then(
        () => expect.unreachable(),
        (error: FunctionsError) => expect(error.message).toBe(ANNOUNCEMENT_MESSAGES.notResumable),
      );
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(mailsWith('Cancelled news').length).toBe(atCancel);
  });

  it('a receipt is delivered while an announcement is sending', async () => {
    await seedFollowers(pool(), { prefix: 'busy', count: 300 });
    const busy = await draft({ subject: 'Busy news' });
    const { counts } = await admin().call('sendAnnouncement', { id: busy.id });
    await waitFor(() => (mailsWith('Busy news').length >= 4 ? true : undefined), 'the announcement to start');
    await grantCredits(shop.db, 'buyer@example.org', '20', 'announce-receipt');
    const buyer = shop.functions(() => fanTokens.buyer);
    const items = [{ id: productId, qty: 1 }];
    const quote = await buyer.call('quoteCheckout', { items, useWallet: true });
    await buyer.call('completeWalletOnlyOrderStreetFlavor', {
      items,
      contact: { name: 'Buyer', email: 'buyer@example.org', phone: '' },
      quote: quotedTotals(quote),
      checkoutId: 'announce-receipt',
    });
    const started = Date.now();
    await smtp.waitForText('buyer@example.org', 'Thank you for your order', 5_000);
    const waited = Date.now() - started;
    // The announcement is still far from done: the receipt did not wait behind it.
    const now = await report(busy.id);
    expect(now.status).toBe('sending');
    expect(now.counts.queued).toBeGreaterThan(counts.total / 3);
    expect(waited).toBeLessThan(5_000);
    await admin().call('cancelAnnouncement', { id: busy.id });
  });

  it('the sender holds MAIL_CONCURRENCY recipients at a time, never the whole audience (its memory does not grow with it)', async () => {
    const paged = await seedArtist(pool(), 'Paged Band');
    await seedFollowers(pool(), { prefix: 'paged', count: 120, artistId: paged });
    const news = await draft({ subject: 'Paged news', toLabel: false, artistIds: [paged] });
    const { counts } = await admin().call('sendAnnouncement', { id: news.id });
    expect(counts.total).toBe(120);
    await waitFor(
      async () => ((await pool().query(`SELECT 1 FROM announcement_recipient WHERE announcement_id = $1 AND state <> 'queued' LIMIT 1`, [news.id])).rowCount ? true : undefined),
      'the first claims',
    );
    // While it sends (2 connections, 40 ms a mail), the rows claimed and not yet recorded are
    // the ones in flight: at most MAIL_CONCURRENCY (2) at any moment; the rest wait queued.
    let most = 0;
    for (let sample = 0; sample < 12; sample += 1) {
      const { rows } = await pool().query<{ sending: number; queued: number; done: number }>(
        `SELECT count(*) FILTER (WHERE state = 'sending')::int AS sending, count(*) FILTER (WHERE state = 'queued')::int AS queued,
                count(*) FILTER (WHERE state NOT IN ('sending', 'queued'))::int AS done
         FROM announcement_recipient WHERE announcement_id = $1`,
        [news.id],
      );
      const { sending, queued, done } = rows[0]!;
      most = Math.max(most, sending);
      expect(sending).toBeLessThanOrEqual(2);
      expect(sending + queued + done).toBe(120);
      await new Promise((resolve) => setTimeout(resolve, 30));
    }
    expect(most).toBeGreaterThan(0);
    await admin().call('cancelAnnouncement', { id: news.id });
  });

  it('automatic announcements: off by default; on, a drop scheduled, a preorder opening and a release going live each send one, once', async () => {
    const automatic = async () =>
      (await pool().query<{ key: string; status: string }>(`SELECT automatic_key AS key, status FROM announcement WHERE automatic_key IS NOT NULL ORDER BY id`)).rows;
    const tee = async (name: string, releaseDate?: string) => {
      const { id } = await admin().call('releaseBizarreProduct', {
        name,
        description: 'Tee',
        priceCents: 2000,
        images: ['/content/covers/cover-01.svg'],
        ...(releaseDate ? { releaseDate } : {}),
        variants: [{ options: [], sku: `AUTO-${name.replaceAll(' ', '-')}`, priceCents: null, stock: 5, perCustomerLimit: null }],
      });
      return id;
    };
    const schedule = async (name: string, productId: string) =>
      admin().call('scheduleDrop', {
        name,
        slug: name.toLowerCase().replaceAll(' ', '-'),
        variantIds: [(await getProduct(shop.db, productId, { includeInactive: true })).variants[0]!.id],
        startsAt: new Date(Date.now() + 3_600_000).toISOString(),
        queueOpensAt: new Date(Date.now() + 60_000).toISOString(),
        perCustomerLimit: 1,
        admissionsPerMinute: 100,
        maxAdmitted: 100,
        checkoutWindowSeconds: 300,
        challenge: false,
      });

    expect((await admin().call('listAnnouncementAutomations', null)).automations).toEqual([
      { kind: 'release-live', enabled: false },
      { kind: 'preorder-open', enabled: false },
      { kind: 'drop-scheduled', enabled: false },
    ]);
    await schedule('Quiet Drop', await tee('Quiet Tee'));
    await tee('Quiet Future Tee', '2099-01-01');
    expect(await automatic()).toEqual([]);

    for (const kind of ['release-live', 'preorder-open', 'drop-scheduled'] as const) await admin().call('setAnnouncementAutomation', { kind, enabled: true });
    const drop = await schedule('Loud Drop', await tee('Loud Tee'));
    const preorder = await tee('Future Tee', '2099-01-01');
    await waitFor(() => (smtp.mailsTo('lab1@example.org').some((mail) => mail.raw.includes('Subject: New drop: Loud Drop')) ? true : undefined), 'the drop announcement');
    const dropMail = smtp.mailsTo('lab1@example.org').find((mail) => mail.raw.includes('Subject: New drop: Loud Drop'))!;
    expect(dropMail.decoded).toContain(`/drops/${drop.slug}`);
    await waitFor(() => (smtp.mailsTo('lab1@example.org').some((mail) => mail.raw.includes('Subject: Preorder now: Future Tee')) ? true : undefined), 'the preorder announcement');
    // An event reported twice is one announcement.
    const again = await announceAutomatically(shop.db, {
      kind: 'drop-scheduled',
      key: `drop-scheduled:${drop.id}`,
      subject: 'New drop: Loud Drop',
      body: 'Again',
      link: { kind: 'drop', id: drop.id, title: 'Loud Drop', path: `/drops/${drop.slug}` },
      artistIds: [],
    });
    expect(again).toBeNull();

    // The street date comes: the release job (every minute) makes it ordinary and announces it.
    await pool().query(`UPDATE product SET release_date = CURRENT_DATE - 1 WHERE id = $1`, [preorder]);
    await waitFor(
      () => (smtp.mailsTo('lab1@example.org').some((mail) => mail.raw.includes('Subject: Out now: Future Tee')) ? true : undefined),
      'the release announcement',
      100_000,
    );
    expect((await automatic()).map((row) => row.key).sort()).toEqual([`drop-scheduled:${drop.id}`, `preorder-open:${preorder}`, `release-live:${preorder}`].sort());
    for (const subject of ['New drop: Loud Drop', 'Preorder now: Future Tee', 'Out now: Future Tee']) {
      const to = recipientsOf(subject);
      expect(new Set(to).size, subject).toBe(to.length);
      expect(to, subject).not.toContain('lab2@example.org');
    }
  }, 150_000);
});
