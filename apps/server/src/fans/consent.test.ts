import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, TEST_PASSWORD, type TestApp } from '../../test/app.ts';
import { startSmtpPeer, type ReceivedMail } from '../../test/smtp.ts';
import { releaseProduct } from '../catalog/catalog.service.ts';
import { marketingConsents } from '../db/schema/index.ts';
import { grantCredits } from '../wallet/wallet.commands.ts';
import { listUnsubscribeHeaders } from './list-unsubscribe.ts';

/**
 * Marketing consent kept apart from orders (issue 37 part 2, decision 074): the public form's
 * double opt-in by a mail the SMTP peer receives, whose link confirms only by POST; the leave
 * link's one-click POST with no cookie withdraws; the checkout's and signup's boxes and /account
 * record when, how and from which page; deletion removes it and the export lists it.
 */
let shop: TestApp;
let smtp: Awaited<ReturnType<typeof startSmtpPeer>>;
const tokens: Record<string, string> = {};
let teeId = '';

beforeAll(async () => {
  smtp = await startSmtpPeer();
  shop = await startTestApp({ config: { env: { SMTP_URL: smtp.url, SIGNUP_RATE_LIMIT: '1000' } } });
  for (const name of ['buyer', 'nobox', 'member', 'gone']) {
    await shop.account(name);
    tokens[name] = await shop.signIn(`${name}@example.org`);
  }
  teeId = await releaseProduct(shop.db, { name: 'Label Tee', description: 'Tee', priceCents: 1000, images: ['/content/covers/cover-01.svg'] });
});

afterAll(async () => {
  await shop?.close();
  await smtp?.close();
});

const as = (name: string) => shop.functions(() => tokens[name]);
const anonymous = () => shop.functions();

async function consentRow(email: string) {
  const [row] = await shop.db.select().from(marketingConsents).where(eq(marketingConsents.email, email));
  return row;
}

function linkIn(mail: ReceivedMail, path: string): string {
  const match = new RegExp(`https?://[^\\s"<>]+${path.replace('/', '\\/')}\\?token=[^\\s"<>]+`).exec(mail.decoded);
  if (!match) throw new Error(`No ${path} link in:\n${mail.decoded}`);
  return match[0].replaceAll('&#38;', '&').replaceAll('&amp;', '&');
}

describe('the public sign-up form (double opt-in)', () => {
  it('mails a link; a GET only shows a button, the POST confirms; the leave link’s one-click POST without a cookie withdraws', async () => {
    const before = Date.now();
    await anonymous().call('subscribeToNews', { email: '  Listener@Example.org ', page: '/artists' });
    expect(await consentRow('listener@example.org')).toMatchObject({ status: 'pending', source: 'form', page: '/artists', givenAt: null, userId: null });

    const mail = await smtp.waitForText('listener@example.org', 'Confirm your news');
    const confirm = linkIn(mail, '/news/confirm');
    // A mail scanner opens the link: nothing is confirmed.
    const shown = await fetch(confirm);
    expect(shown.status).toBe(200);
    expect(await shown.text()).toContain('<button type="submit">Confirm</button>');
    expect((await consentRow('listener@example.org'))!.status).toBe('pending');
    const confirmed = await fetch(confirm, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' });
    expect(confirmed.status).toBe(200);
    expect(await confirmed.text()).toContain('You will get our news.');
    const given = (await consentRow('listener@example.org'))!;
    expect(given).toMatchObject({ status: 'given', source: 'form', page: '/artists' });
    expect(given.givenAt!.getTime()).toBeGreaterThanOrEqual(before - 1000);

    // The leave link in the same mail: a GET shows a button and changes nothing; a one-click POST (no cookie) withdraws.
    const leave = linkIn(mail, '/news/leave');
    expect(await (await fetch(leave)).text()).toContain('Stop the news');
    expect((await consentRow('listener@example.org'))!.status).toBe('given');
    const left = await fetch(leave, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'List-Unsubscribe=One-Click' });
    expect(left.status).toBe(200);
    expect(await consentRow('listener@example.org')).toMatchObject({ status: 'withdrawn', withdrawnBy: 'one-click' });
  });

  it('refuses a forged or altered link and changes nothing', async () => {
    await anonymous().call('subscribeToNews', { email: 'forger@example.org', page: '/' });
    const mail = await smtp.waitForText('forger@example.org', 'Confirm your news');
    const confirm = linkIn(mail, '/news/confirm');
    const url = new URL(confirm);
    const [email, expiry, signature] = url.searchParams.get('token')!.split('.');
    const other = `${Buffer.from('listener@example.org').toString('base64url')}.${expiry}.${signature}`;
    const forged = await fetch(`${url.origin}/news/confirm?token=${other}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' });
    expect(forged.status).toBe(400);
    // A confirm link does not withdraw, nor the other way round.
    const crossed = await fetch(`${url.origin}/news/leave?token=${email}.${expiry}.${signature}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: '',
    });
    expect(crossed.status).toBe(400);
    expect((await consentRow('forger@example.org'))!.status).toBe('pending');
    expect((await consentRow('listener@example.org'))!.status).toBe('withdrawn');
  });

  it('is rate limited per address asked for', async () => {
    for (let i = 0; i < 3; i += 1) await anonymous().call('subscribeToNews', { email: 'flooded@example.org', page: '/' });
    await expect(anonymous().call('subscribeToNews', { email: 'flooded@example.org', page: '/' })).rejects.toMatchObject({ code: 'resource-exhausted' });
    await expect(anonymous().call('subscribeToNews', { email: 'not an address', page: '/' })).rejects.toMatchObject({ code: 'invalid-argument' });
  });
});

describe('boxes and /account', () => {
  async function walletOrder(name: string, marketingConsent: boolean) {
    await grantCredits(shop.db, `${name}@example.org`, '50', `consent-${name}`);
    const items = [{ id: teeId, qty: 1 }];
    const quote = await as(name).call('quoteCheckout', { items, useWallet: true, destination: { country: 'US', state: 'IL', postal_code: '62701' } });
    return as(name).call('completeWalletOnlyOrderStreetFlavor', {
      items,
      contact: { name, email: `${name}@example.org`, phone: '' },
      shipping: { name, line1: '1 Main St', line2: '', city: 'Springfield', state: 'IL', postal_code: '62701', country: 'US' },
      quote,
      checkoutId: `consent-${name}`,
      marketingConsent,
    });
  }

  it("the checkout's box (unticked by default) records consent from /checkout; unticked records none", async () => {
    await walletOrder('buyer', true);
    expect(await consentRow('buyer@example.org')).toMatchObject({ status: 'given', source: 'checkout', page: '/checkout' });
    await walletOrder('nobox', false);
    expect(await consentRow('nobox@example.org')).toBeUndefined();
  });

  it("the signup's box records consent from /signup; without it, none", async () => {
    const form = { password: TEST_PASSWORD, confirmPassword: TEST_PASSWORD, acceptedTerms: true };
    await anonymous().call('createAccount', { ...form, email: 'joiner@example.org', name: 'Joiner', username: 'joiner', marketingConsent: true });
    expect(await consentRow('joiner@example.org')).toMatchObject({ status: 'given', source: 'signup', page: '/signup' });
    expect((await consentRow('joiner@example.org'))!.userId).toBeTruthy();
    await anonymous().call('createAccount', { ...form, email: 'quiet@example.org', name: 'Quiet', username: 'quiet' });
    expect(await consentRow('quiet@example.org')).toBeUndefined();
  });

  it('/account gives and withdraws in one click; the List-Unsubscribe helper’s link withdraws by POST without a cookie', async () => {
    expect(await as('member').call('getMyConsent', null)).toEqual({ consented: false, source: null, page: null, givenAt: null });
    const given = await as('member').call('setMyConsent', { consented: true, page: '/account' });
    expect(given).toMatchObject({ consented: true, source: 'account', page: '/account' });
    const withdrawn = await as('member').call('setMyConsent', { consented: false, page: '/account' });
    expect(withdrawn.consented).toBe(false);
    expect(await consentRow('member@example.org')).toMatchObject({ status: 'withdrawn', withdrawnBy: 'account' });

    await as('member').call('setMyConsent', { consented: true, page: '/account' });
    const headers = listUnsubscribeHeaders(shop.baseUrl, shop.config.AUTH_SECRET, 'member@example.org');
    expect(headers['List-Unsubscribe-Post']).toBe('List-Unsubscribe=One-Click');
    const url = /^<(.+)>$/.exec(headers['List-Unsubscribe'])![1]!;
    expect(url.startsWith(`${shop.baseUrl}/news/leave?token=`)).toBe(true);
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'multipart/form-data; boundary=x' },
      body: '--x\r\nContent-Disposition: form-data; name="List-Unsubscribe"\r\n\r\nOne-Click\r\n--x--\r\n',
    });
    expect(response.status).toBe(200);
    expect((await as('member').call('getMyConsent', null)).consented).toBe(false);
  });

  it('the export lists the consent; deleting the account removes it', async () => {
    await as('gone').call('setMyConsent', { consented: true, page: '/account' });
    const exported = await as('gone').call('exportMyData', null);
    expect(exported.marketingConsent).toEqual([expect.objectContaining({ email: 'gone@example.org', status: 'given', source: 'account', page: '/account' })]);
    await as('gone').call('deleteAccount', { password: TEST_PASSWORD, confirm: 'DELETE' });
    expect(await consentRow('gone@example.org')).toBeUndefined();
    // Others' consent stays.
    expect(await consentRow('buyer@example.org')).toBeDefined();
  });
});
