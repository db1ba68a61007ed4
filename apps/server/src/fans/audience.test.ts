import { and, count, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUDIENCE_MESSAGES, CsvReader, type AudienceImportReport } from '@storefront/domain/audience.ts';
import { createAccount } from '../accounts/accounts.service.ts';
import { startTestApp, TEST_PASSWORD, type TestApp } from '../../test/app.ts';
import { marketingConsents, users } from '../db/schema/index.ts';
import { giveConsent, requestConsent, withdrawConsent } from './consent.service.ts';

/**
 * The label's list (issue 37 part 6, decision 078), through the real routes: the import of a CSV
 * of fans who consented elsewhere (Bandcamp's export shape, broken rows, duplicates, rows without
 * consent or a good address, 100,000 rows, the size and row limits) with its report and its rows
 * in the database; the export of exactly the consenting fans with formula cells defused; and
 * only the shop's admins reach either.
 */
let shop: TestApp;
let admin = '';
let fan = '';

beforeAll(async () => {
  shop = await startTestApp({ config: { env: { SIGNUP_RATE_LIMIT: '1000' } } });
  await createAccount(
    shop.db,
    shop.config,
    { email: 'boss@example.org', username: 'boss', name: 'Boss', password: TEST_PASSWORD, confirmPassword: TEST_PASSWORD, acceptedTerms: true },
    { emailVerified: true, role: 'admin' },
  );
  admin = await shop.signIn('boss@example.org');
  await shop.account('plainfan');
  fan = await shop.signIn('plainfan@example.org');
}, 60_000);

afterAll(async () => {
  await shop?.close();
});

async function importCsv(text: string | Uint8Array, token = admin) {
  const response = await fetch(`${shop.baseUrl}/api/admin/audience/import`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'text/csv' },
    body: text,
  });
  const body = (await response.json()) as { data?: AudienceImportReport; error?: { message: string } };
  return { status: response.status, report: body.data, error: body.error?.message };
}

async function consentRow(email: string) {
  const [row] = await shop.db.select().from(marketingConsents).where(eq(marketingConsents.email, email));
  return row;
}

function readCsv(text: string): string[][] {
  const reader = new CsvReader();
  return [...reader.push(text), ...reader.end()].map((record) => record.cells);
}

describe('importing fans who consented elsewhere', () => {
  it('reads Bandcamp’s mailing-list export: adds each address once with source "import" and the file’s date, refusing broken rows, duplicates, bad addresses and rows without a date', async () => {
    const file = [
      '"email","fullname","firstname","lastname","date added","country","postal code","num purchases"',
      '"ana@example.net","Ana Lima","Ana","Lima","2021-03-14 18:15:42 UTC","Brazil","01000","3"',
      '"Bo@Example.net","","Bo","Berg","14 Mar 2022 09:00:00 GMT","Sweden","","0"',
      '" ANA@example.net ","Ana Again","","","2023-01-01","Brazil","",""',
      '"not-an-address","Nobody","","","2021-01-01","","",""',
      '"cy@example.net","Cy","","","","France","",""',
      '"di@example.net","Di","","","2021-02-30","France","",""',
      '"ed@example.net","Ed","","","2021-01-01","Spain","","","","","extra"',
      '"fy@example.net","Fy","","","2020-07-01T10:00:00Z","Chile","",""',
      '',
      '"gu@example.net","Gu ""the quote","","","2020-07-01","Peru","",""',
      '"broken@example.net","Unclosed,"2021-01-01","Peru","",""',
    ].join('\r\n');
    const { status, report } = await importCsv(file);
    expect(status).toBe(200);
    expect(report).toMatchObject({ rows: 10, added: 4, merged: 0, refused: 6 });
    expect(report!.refusals).toEqual([
      { line: 4, email: 'ana@example.net', reason: AUDIENCE_MESSAGES.duplicate(2) },
      { line: 5, email: 'not-an-address', reason: AUDIENCE_MESSAGES.badEmail },
      { line: 6, email: 'cy@example.net', reason: AUDIENCE_MESSAGES.noDate },
      { line: 7, email: 'di@example.net', reason: AUDIENCE_MESSAGES.badDate },
      { line: 8, email: 'ed@example.net', reason: AUDIENCE_MESSAGES.brokenRow },
      { line: 12, email: 'broken@example.net', reason: AUDIENCE_MESSAGES.brokenRow },
    ]);
    expect(await consentRow('ana@example.net')).toMatchObject({ status: 'given', source: 'import', name: 'Ana Lima', country: 'Brazil', userId: null });
    expect((await consentRow('ana@example.net'))!.givenAt!.toISOString()).toBe('2021-03-14T18:15:42.000Z');
    expect(await consentRow('bo@example.net')).toMatchObject({ status: 'given', source: 'import', name: 'Bo Berg', country: 'Sweden' });
    expect((await consentRow('bo@example.net'))!.givenAt!.toISOString()).toBe('2022-03-14T09:00:00.000Z');
    expect((await consentRow('fy@example.net'))!.givenAt!.toISOString()).toBe('2020-07-01T10:00:00.000Z');
    expect((await consentRow('gu@example.net'))!.name).toBe('Gu "the quote');
    for (const refused of ['cy@example.net', 'di@example.net', 'ed@example.net', 'broken@example.net', 'not-an-address']) expect(await consentRow(refused)).toBeUndefined();
  });

  it('merges with the consents the shop has: a consent stands, a pending request becomes consent, a withdrawal is never undone; a "no" is refused', async () => {
    await giveConsent(shop.db, { email: 'kept@example.net', source: 'checkout', page: '/checkout' });
    await requestConsent(shop.db, 'waiting@example.net', '/');
    await giveConsent(shop.db, { email: 'left@example.net', source: 'form', page: '/' });
    await withdrawConsent(shop.db, 'left@example.net', 'link');
    const keptAt = (await consentRow('kept@example.net'))!.givenAt!.toISOString();
    const file = [
      'Email Address,Name,Country,Consented At,Opted In',
      'kept@example.net,Kept Fan,Norway,2019-05-01,yes',
      'waiting@example.net,Waiting Fan,,2019-05-02,yes',
      'left@example.net,Left Fan,,2019-05-03,yes',
      'nope@example.net,No Fan,,2019-05-04,no',
      'new@example.net,New Fan,,5/6/2019,true',
    ].join('\n');
    const { report } = await importCsv(file);
    expect(report).toMatchObject({ rows: 5, added: 1, merged: 2, refused: 2 });
    expect(report!.refusals.map((refusal) => [refusal.line, refusal.reason])).toEqual([
      [4, AUDIENCE_MESSAGES.withdrawn],
      [5, AUDIENCE_MESSAGES.noConsent],
    ]);
    // The shop's own consent stands (its source and date); the file fills the name and country it lacked.
    const kept = (await consentRow('kept@example.net'))!;
    expect(kept).toMatchObject({ status: 'given', source: 'checkout', name: 'Kept Fan', country: 'Norway' });
    expect(kept.givenAt!.toISOString()).toBe(keptAt);
    expect(await consentRow('waiting@example.net')).toMatchObject({ status: 'given', source: 'import' });
    expect((await consentRow('waiting@example.net'))!.givenAt!.toISOString()).toBe('2019-05-02T00:00:00.000Z');
    expect(await consentRow('left@example.net')).toMatchObject({ status: 'withdrawn', source: 'form' });
    expect(await consentRow('nope@example.net')).toBeUndefined();
    expect((await consentRow('new@example.net'))!.givenAt!.toISOString()).toBe('2019-05-06T00:00:00.000Z');
  });

  it('refuses a file it cannot read whole: no email or date column, more than 100,000 rows, more than 20 MB; nothing is recorded', async () => {
    const before = (await shop.db.select({ n: count() }).from(marketingConsents))[0]!.n;
    expect(await importCsv('name,country\nAna,Brazil\n')).toMatchObject({ status: 400, error: AUDIENCE_MESSAGES.noEmailColumn });
    expect(await importCsv('email,country\nana@example.org,Brazil\n')).toMatchObject({ status: 400, error: AUDIENCE_MESSAGES.noDateColumn });
    const tooMany = ['email,date added', ...Array.from({ length: 100_001 }, (_, i) => `many${i}@example.com,2020-01-01`)].join('\n');
    expect(await importCsv(tooMany)).toMatchObject({ status: 400, error: AUDIENCE_MESSAGES.tooManyRows });
    const tooBig = `email,date added,notes\nbig@example.com,2020-01-01,${'x'.repeat(21 * 1024 * 1024)}\n`;
    expect(await importCsv(tooBig)).toMatchObject({ error: AUDIENCE_MESSAGES.tooBig });
    expect((await shop.db.select({ n: count() }).from(marketingConsents))[0]!.n).toBe(before);
  }, 60_000);

  it('imports 100,000 rows within the limits, each in the database', async () => {
    const rows = Array.from({ length: 100_000 }, (_, i) => `"bulk${i}@example.com","Bulk Fan ${i}","","","2020-01-01 00:00:00 UTC","Germany","",""`);
    const file = ['"email","fullname","firstname","lastname","date added","country","postal code","num purchases"', ...rows].join('\n');
    const started = Date.now();
    const { status, report } = await importCsv(new TextEncoder().encode(file));
    expect(status).toBe(200);
    expect(report).toMatchObject({ rows: 100_000, added: 100_000, merged: 0, refused: 0 });
    const [stored] = await shop.db
      .select({ n: count() })
      .from(marketingConsents)
      .where(and(eq(marketingConsents.source, 'import'), sql`${marketingConsents.email} LIKE 'bulk%'`));
    expect(stored!.n).toBe(100_000);
    expect(Date.now() - started).toBeLessThan(60_000);
  }, 120_000);

  it('is the admins’ alone', async () => {
    const file = 'email,date added\nsneak@example.net,2020-01-01\n';
    expect((await importCsv(file, '')).status).toBe(401);
    expect((await importCsv(file, fan)).status).toBe(403);
    expect(await consentRow('sneak@example.net')).toBeUndefined();
  });
});

describe('exporting the consenting fans', () => {
  it('lists exactly the consenting fans, with name, country, consent and follows, formula cells defused', async () => {
    // An account that consents and follows the label and an artist; a name a spreadsheet would run.
    const follower = await shop.account('follower');
    await shop.db.update(users).set({ name: '=HYPERLINK("http://evil.example","click")', country: 'IE' }).where(eq(users.id, follower));
    await giveConsent(shop.db, { email: 'follower@example.org', userId: follower, source: 'signup', page: '/signup' });
    const artist = await shop.functions(() => admin).call('saveArtist', { name: 'Export Artist', links: [] });
    const token = await shop.signIn('follower@example.org');
    const as = shop.functions(() => token);
    await as.call('setFollow', { target: { kind: 'label' }, followed: true });
    await as.call('setFollow', { target: { kind: 'artist', artistId: artist.id }, followed: true });
    await shop.account('quiet');
    await giveConsent(shop.db, { email: '+formula@example.net', source: 'form', page: '/' });

    const response = await fetch(`${shop.baseUrl}/api/admin/audience.csv`, { headers: { authorization: `Bearer ${admin}` } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/csv');
    const text = await response.text();
    const [header, ...rows] = readCsv(text.replace(/^\uFEFF/, ''));
    expect(header).toEqual(['email', 'name', 'country', 'consented_at', 'consent_source', 'follows']);
    const given = await shop.db.select({ email: marketingConsents.email }).from(marketingConsents).where(eq(marketingConsents.status, 'given'));
    expect(rows.map((row) => row[0]).sort()).toEqual(
      given
        .map((row) => row.email)
        .map((email) => (email.startsWith('+') ? `'${email}` : email))
        .sort(),
    );
    // Withdrawn, pending and never-asked addresses are not in it.
    for (const absent of ['left@example.net', 'quiet@example.org', 'plainfan@example.org', 'nope@example.net']) expect(rows.some((row) => row[0] === absent)).toBe(false);
    const followerRow = rows.find((row) => row[0] === 'follower@example.org')!;
    expect(followerRow).toEqual(['follower@example.org', `'=HYPERLINK("http://evil.example","click")`, 'IE', expect.any(String), 'signup', 'label; artist:export-artist']);
    expect(text).toContain(`"'=HYPERLINK(""http://evil.example"",""click"")"`);
    expect(rows.find((row) => row[0] === 'ana@example.net')).toEqual(['ana@example.net', 'Ana Lima', 'Brazil', '2021-03-14T18:15:42.000Z', 'import', '']);

    // The tab's figures count the same fans.
    const audience = await shop.functions(() => admin).call('getAudience', null);
    expect(audience.consenting).toBe(given.length);
    expect(audience.followers).toMatchObject({ fans: 1, label: 1, artists: [{ slug: 'export-artist', followers: 1 }] });
    expect(audience.unsubscribed).toBe(1);
    expect(audience.weeks).toHaveLength(12);
    expect(audience.weeks.at(-1)!.follows).toBe(2);
  }, 60_000);

  it('is the admins’ alone', async () => {
    expect((await fetch(`${shop.baseUrl}/api/admin/audience.csv`)).status).toBe(401);
    const refused = await fetch(`${shop.baseUrl}/api/admin/audience.csv`, { headers: { authorization: `Bearer ${fan}` } });
    expect(refused.status).toBe(403);
    expect(await refused.text()).not.toContain('@example');
  });
});

describe('an account’s deletion and data export', () => {
  it('export lists the consent an import made for its address; deletion removes it and the follows', async () => {
    const id = await shop.account('imported');
    await importCsv('email,fullname,date added,country\nimported@example.org,Imported One,2020-02-02,Italy\n');
    const token = await shop.signIn('imported@example.org');
    const as = shop.functions(() => token);
    await as.call('setFollow', { target: { kind: 'label' }, followed: true });
    const exported = await as.call('exportMyData', null);
    expect(exported.marketingConsent).toEqual([
      expect.objectContaining({ email: 'imported@example.org', status: 'given', source: 'import', name: 'Imported One', country: 'Italy' }),
    ]);
    expect(JSON.stringify(exported.follows)).toContain('label');
    await as.call('deleteAccount', { password: TEST_PASSWORD, confirm: 'DELETE' });
    expect(await consentRow('imported@example.org')).toBeUndefined();
    const left = await shop.db.execute<{ n: number }>(sql`SELECT count(*)::int AS n FROM fan_follow WHERE user_id = ${id}`);
    expect(left.rows[0]!.n).toBe(0);
  });
});
