import type { APIRequestContext } from '@playwright/test';
import { expect } from './fixtures.ts';

/** A new account's details, unique per call. */
export function newUser() {
  const id = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 7)}`;
  return { email: `e2e-${id}@example.com`, password: 'first-pass-123', name: 'E2E Fan', username: `e2e${id}` };
}

function decodeEntities(html: string): string {
  return html.replace(/&#(\d+);/g, (_match, code: string) => String.fromCharCode(Number(code)));
}

/**
 * The first link (under `pathPrefix`, if given) of the newest mail to `to` whose subject contains `subject`, from the dev
 * mailbox, as a path on the site under test (the mail names the server's PUBLIC_URL host,
 * whose cookies would not be this browser's).
 */
export async function mailLink(request: APIRequestContext, to: string, subject: string, pathPrefix = ''): Promise<string> {
  let link: string | undefined;
  await expect(async () => {
    const html = await (await request.get('/dev/mailbox')).text();
    const mails = [...html.matchAll(/<article><h2>(.*?)<\/h2><p>To: (.*?) · .*?<\/p><pre>([\s\S]*?)<\/pre><\/article>/g)];
    const mail = mails.find(([, subjectHtml = '', toHtml = '']) => decodeEntities(toHtml) === to && decodeEntities(subjectHtml).includes(subject));
    const url = mail
      ? [...decodeEntities(mail[3] ?? '').matchAll(/https?:\/\/\S+/g)].map((match) => match[0]).find((found) => new URL(found).pathname.startsWith(pathPrefix))
      : undefined;
    expect(url, `a "${subject}" mail to ${to}`).toBeTruthy();
    const parsed = new URL(url!);
    link = `${parsed.pathname}${parsed.search}`;
  }).toPass({ timeout: 20_000 });
  return link!;
}

/** An account made through the signup function, not yet verified. */
export async function createUser(request: APIRequestContext) {
  const user = newUser();
  const response = await request.post('/fn/createAccount', {
    data: { data: { ...user, confirmPassword: user.password, acceptedTerms: true } },
  });
  expect(response.ok(), await response.text()).toBe(true);
  return user;
}

/** An account made through the signup function and verified through its mail. */
export async function createVerifiedUser(request: APIRequestContext) {
  const user = await createUser(request);
  const verified = await request.get(await mailLink(request, user.email, 'Verify your email'));
  expect(verified.ok()).toBe(true);
  return user;
}
