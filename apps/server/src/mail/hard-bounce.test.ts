import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, testConfig, type TestDatabase } from '../../test/database.ts';
import { startSmtpPeer } from '../../test/smtp.ts';
import { isSuppressed } from './mail.service.ts';
import { createMailer, type Mail, type Mailer } from './mailer.ts';

/**
 * Hard bounces (issue 37 part 2): a recipient the SMTP server refuses for good (550 to RCPT TO,
 * from a real SMTP peer) is recorded, marketing mail is not sent to it again, and order,
 * account and download mail still is (it is never suppressed).
 */
let database: TestDatabase;
let smtp: Awaited<ReturnType<typeof startSmtpPeer>>;
let send: Mailer;
const GONE = 'gone@example.org';

beforeAll(async () => {
  database = await createTestDatabase();
  smtp = await startSmtpPeer({ refuse: [GONE] });
  send = createMailer({ ...testConfig(), SMTP_URL: smtp.url }, database.db);
});

afterAll(async () => {
  send?.close();
  await smtp?.close();
  await database?.close();
});

const marketing = (to: string): Mail => ({
  to,
  subject: 'Back in stock',
  text: 'It is back.',
  html: '<p>It is back.</p>',
  headers: { 'List-Unsubscribe': '<https://shop.example/unsubscribe/x>', 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
});
const receipt = (to: string): Mail => ({ to, subject: 'Your order', text: 'Thanks.', html: '<p>Thanks.</p>' });

describe('hard bounces', () => {
  it('stop marketing mail to the refused address for good; receipts still go, and other fans are not touched', async () => {
    // The first marketing mail is refused: recorded, and done with (no retry of a permanent refusal).
    await expect(send(marketing(GONE))).resolves.toBeUndefined();
    expect(smtp.refused).toEqual([GONE]);
    expect(await isSuppressed(database.db, 'Gone@Example.org')).toBe(true);
    // The next marketing mail to it is not even offered to the SMTP server.
    await send(marketing(GONE));
    expect(smtp.refused).toEqual([GONE]);
    // A receipt is never suppressed: it is offered again, and its refusal stays an error (its job retries and is seen).
    await expect(send(receipt(GONE))).rejects.toMatchObject({ responseCode: 550 });
    expect(smtp.refused).toEqual([GONE, GONE]);
    // Another fan gets the marketing mail.
    await send(marketing('stays@example.org'));
    expect(smtp.mailsTo('stays@example.org')).toHaveLength(1);
    expect(await isSuppressed(database.db, 'stays@example.org')).toBe(false);
  });
});
