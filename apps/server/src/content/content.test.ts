import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTENT_MESSAGES, safeImageSrc, safeLinkHref } from '@storefront/domain/content.ts';
import type { FunctionInput, FunctionName } from '@storefront/domain/contracts/index.ts';
import { createAuthClient } from '@storefront/sdk/auth.ts';
import { createFunctionsClient, type FunctionsError } from '@storefront/sdk/callable.ts';
import { startTestApp, type TestApp } from '../../test/app.ts';
import type { TestDatabase } from '../../test/database.ts';
import { openSse } from '../../test/sse.ts';
import { createAccount } from '../accounts/accounts.service.ts';
import { adminAudit, contentPages, timelineEntries } from '../db/schema/index.ts';
import { contentSeeder } from '../seed/seed.ts';

let database: TestDatabase;
let testApp: TestApp;
let base: string;
let adminToken: string;
let fanToken: string;

const account = (email: string, username: string) => ({ email, username, name: username, password: 'pass words', confirmPassword: 'pass words', acceptedTerms: true });
const fn = (token?: string) => createFunctionsClient({ baseUrl: base, getAuthToken: () => token });
const asAdmin = <N extends FunctionName>(name: N, data: FunctionInput<N>) => fn(adminToken).call(name, data);
async function tokenFor(email: string) {
  const { token } = await createAuthClient({ baseUrl: base, functions: fn() }).signIn(email, 'pass words');
  return token!;
}
async function errorOf(promise: Promise<unknown>): Promise<FunctionsError> {
  return (await promise.then(
    () => undefined,
    (e: unknown) => e,
  )) as FunctionsError;
}
async function page(slug: string) {
  return (await (await fetch(`${base}/api/pages/${slug}`)).json()) as { title: string; body: Record<string, unknown> };
}
const auditRows = (targetId: string) => database.db.select().from(adminAudit).where(eq(adminAudit.targetId, targetId)).orderBy(adminAudit.id);

const cover = { title: 'New Record', artist: 'Saint Vinyl', year: 2026, image: '/content/covers/cover-01.svg', url: 'https://music.example.com/album/new-record' };

beforeAll(async () => {
  testApp = await startTestApp({
    config: { env: { SIGNUP_RATE_LIMIT: '1000', CONTACT_EMAIL: 'info@label.example' } },
    async seed({ db, config }) {
      await contentSeeder.run(db, { config, log: () => undefined });
      await createAccount(db, config, account('admin@example.org', 'Admin'), { emailVerified: true, role: 'admin', allowReservedUsername: true });
      await createAccount(db, config, account('fan@example.org', 'Fan'), { emailVerified: true });
    },
  });
  ({ database, baseUrl: base } = testApp);
  adminToken = await tokenFor('admin@example.org');
  fanToken = await tokenFor('fan@example.org');
});

afterAll(async () => {
  await testApp?.close();
});

describe('the seeded content', () => {
  it('is the initial rows: the sample Home, About, Privacy and History pages, and CONTACT_EMAIL', async () => {
    const home = await page('home');
    expect((home.body.covers as unknown[]).length).toBe(10);
    expect(home.body.copyright).toMatch(/Street Flavor Records/);
    expect((await page('about')).title).toBe('About');
    expect((await page('privacy-policy')).title).toBe('Privacy Policy');
    expect((await database.db.select().from(timelineEntries)).length).toBeGreaterThan(30);
    expect(((await (await fetch(`${base}/api/site`)).json()) as { contactEmail: string }).contactEmail).toBe('info@label.example');
  });
});

describe('content editing', () => {
  it('an admin saves About: the row changes, the audit has before and after, and open pages hear of it', async () => {
    const stream = await openSse(`${base}/api/live`);
    const sections = [{ heading: 'The artist', paragraphs: ['Rewritten in the console.', 'Second paragraph.'] }];
    expect(await asAdmin('saveTextPage', { slug: 'about', sections })).toEqual({ ok: true });
    const [row] = await database.db.select().from(contentPages).where(eq(contentPages.slug, 'about'));
    expect(row!.body).toEqual({ title: 'About', sections });
    const audit = await auditRows('about');
    expect(audit.map((entry) => [entry.action, entry.actorLabel])).toEqual([['content.edit', 'admin@example.org']]);
    expect((audit[0]!.before as { sections: unknown[] }).sections.length).toBeGreaterThan(1);
    expect(audit[0]!.after).toEqual({ title: 'About', sections });
    await stream.waitFor((event) => event.event === 'content' && event.data === JSON.stringify({ id: 'about' }));
    // An anonymous stream does not get the admins' topic.
    expect(stream.events.some((event) => event.event === 'admin')).toBe(false);
    await stream.close();

    // The same save again changes nothing and writes no second audit row.
    await asAdmin('saveTextPage', { slug: 'about', sections });
    expect(await auditRows('about')).toHaveLength(1);
  });

  it('an admin saves Home: covers and links, keeping the fields it does not edit; admins hear of the audit row', async () => {
    const stream = await openSse(`${base}/api/live?topics=admin`, { authorization: `Bearer ${adminToken}` });
    const shopper = await openSse(`${base}/api/live?topics=admin,content`, { authorization: `Bearer ${fanToken}` });
    await asAdmin('saveHomePage', { intro: 'Fresh intro.', covers: [cover], copyright: '© 2026 Street Flavor Records.' });
    const home = await page('home');
    expect(home.body).toMatchObject({ title: 'Home', intro: 'Fresh intro.', covers: [cover], copyright: '© 2026 Street Flavor Records.' });
    expect(await auditRows('home')).toHaveLength(1);
    await stream.waitFor((event) => event.event === 'admin');
    // A shopper hears that the page changed, never the admins' topic.
    await shopper.waitFor((event) => event.event === 'content' && event.data === JSON.stringify({ id: 'home' }));
    expect(shopper.events.some((event) => event.event === 'admin')).toBe(false);
    await Promise.all([stream.close(), shopper.close()]);
  });

  it('stores an absolute download URL of the shop as its path, and refuses other sites’ images', async () => {
    const image = `${base}/v0/b/storefront.appspot.com/o/content%2F1_cover.png?alt=media&token=abc`;
    await asAdmin('saveHomePage', { intro: '', covers: [{ ...cover, image }] });
    expect(((await page('home')).body.covers as { image: string }[])[0]!.image).toBe('/v0/b/storefront.appspot.com/o/content%2F1_cover.png?alt=media&token=abc');
    for (const image of ['https://evil.example/x.png', '/api/auth/sign-out', '/content/covers/../../api/me', `${base}/fn/setAdmin`]) {
      const refused = await errorOf(asAdmin('saveHomePage', { intro: '', covers: [{ ...cover, image }] }));
      expect(refused.message, image).toBe(CONTENT_MESSAGES.image);
    }
  });

  it('refuses links other than http(s) and mailto, and control characters, with sentences', async () => {
    for (const url of ['javascript:alert(1)', 'data:text/html,<script>alert(1)</script>', '//evil.example', 'vbscript:x', 'JaVaScRiPt:alert(1)']) {
      const error = await errorOf(asAdmin('saveHomePage', { intro: '', covers: [{ ...cover, url }] }));
      expect([error.code, error.message], url).toEqual(['invalid-argument', CONTENT_MESSAGES.link]);
    }
    const nul = await errorOf(asAdmin('saveTextPage', { slug: 'about', sections: [{ heading: 'x\u0000', paragraphs: ['y'] }] }));
    expect(nul.code).toBe('invalid-argument');
    // Markup is stored and served as text: the pages render it escaped (React), never as HTML.
    await asAdmin('saveTextPage', { slug: 'privacy-policy', sections: [{ heading: '<img src=x onerror=alert(1)>', paragraphs: ['<script>alert(1)</script>'] }] });
    expect(((await page('privacy-policy')).body.sections as { heading: string }[])[0]!.heading).toBe('<img src=x onerror=alert(1)>');
  });

  it('replaces the History timeline in date order, audited', async () => {
    const entries = [
      { releasedOn: '2024-05-01', title: 'Later', format: 'Album', note: '' },
      { releasedOn: '1993-06-12', title: 'First', format: 'EP', note: 'The first.' },
    ];
    await asAdmin('saveHistory', { entries });
    const { entries: listed } = await fn().call('listHistory', null);
    expect(listed.map((entry) => [entry.title, entry.year])).toEqual([
      ['First', 1993],
      ['Later', 2024],
    ]);
    const [audit] = await auditRows('history');
    expect(audit!.action).toBe('content.history');
    expect((audit!.before as { entries: unknown[] }).entries.length).toBeGreaterThan(30);
  });

  it('sets the Contact email that /api/site serves', async () => {
    await asAdmin('setContactEmail', { email: 'Bookings@Label.example' });
    expect(((await (await fetch(`${base}/api/site`)).json()) as { contactEmail: string }).contactEmail).toBe('bookings@label.example');
    expect((await errorOf(asAdmin('setContactEmail', { email: 'not an email' }))).message).toBe(CONTENT_MESSAGES.contactEmail);
    expect(await auditRows('contact')).toHaveLength(1);
  });

  it('refuses shoppers and visitors, and changes nothing', async () => {
    const before = await database.db.select().from(contentPages);
    const calls: [FunctionName, unknown][] = [
      ['saveHomePage', { intro: 'Hacked', covers: [] }],
      ['saveTextPage', { slug: 'about', sections: [] }],
      ['saveHistory', { entries: [] }],
      ['setContactEmail', { email: 'evil@example.org' }],
    ];
    for (const [name, data] of calls) {
      expect((await errorOf(fn(fanToken).call(name, data as never))).code, name).toBe('permission-denied');
      expect((await errorOf(fn().call(name, data as never))).code, name).toBe('unauthenticated');
    }
    expect(await database.db.select().from(contentPages)).toEqual(before);
    expect((await database.db.select().from(timelineEntries)).length).toBe(2);
  });
});

describe('safe rendering checks', () => {
  it.each([
    ['https://music.example.com/a', 'https://music.example.com/a'],
    ['mailto:info@label.example', 'mailto:info@label.example'],
    ['javascript:alert(1)', undefined],
    [' javascript:alert(1)', undefined],
    ['data:text/html,x', undefined],
    ['/relative', undefined],
    ['https://', undefined],
  ])('safeLinkHref(%j) is %j', (url, expected) => {
    expect(safeLinkHref(url)).toBe(expected);
  });

  it.each([
    ['/content/covers/cover-01.svg', true],
    ['/v0/b/b/o/content%2Fa.png?alt=media&token=t', true],
    ['//evil.example/x.png', false],
    ['javascript:alert(1)', false],
    ['https://evil.example/x.png', false],
    ['/api/auth/sign-out', false],
    ['/v0/b/b/o/content%2Fa.png?alt=media', false],
  ])('safeImageSrc(%j) keeps it: %j', (src, kept) => {
    expect(safeImageSrc(src) !== undefined).toBe(kept);
  });
});

describe('messages a person reads', () => {
  it('says what is wrong with a cover, an entry or a section, in a sentence', async () => {
    const cases: [FunctionName, unknown, string][] = [
      ['saveHomePage', { intro: '', covers: [{ ...cover, year: 1800 }] }, CONTENT_MESSAGES.coverYear],
      ['saveHomePage', { intro: '', covers: [{ ...cover, title: '  ' }] }, CONTENT_MESSAGES.coverTitle],
      ['saveHomePage', { intro: '', covers: [{ ...cover, image: '' }] }, CONTENT_MESSAGES.coverImage],
      ['saveHistory', { entries: [{ releasedOn: '1993-13-40', title: 'x', format: 'EP' }] }, CONTENT_MESSAGES.entryDate],
      ['saveHistory', { entries: [{ releasedOn: '1993-01-01', title: 'x', format: '' }] }, CONTENT_MESSAGES.entryFormat],
      ['saveTextPage', { slug: 'about', sections: [{ heading: 'x', paragraphs: ['y'.repeat(5001)] }] }, 'A paragraph must be at most 5000 characters.'],
    ];
    for (const [name, data, message] of cases) {
      const error = await errorOf(fn(adminToken).call(name, data as never));
      expect([error.code, error.message], JSON.stringify(data).slice(0, 80)).toEqual(['invalid-argument', message]);
    }
  });
});
