// Follows (issue 37 part 1, decision 074) in a real browser: a signed-out visitor is asked to
// log in; a fan follows an artist from a release page, another open tab (/account) shows it at
// once (live 'profile'), unfollows there and the release page's button follows suit; then the
// fan buys the release with the checkout's box ticked and /account lists the artist again.
import { CHECKOUT_MESSAGES } from '@storefront/domain/pricing.ts';
import { CHECKOUT_TEXTS } from '../apps/web/src/features/checkout/messages.ts';
import { FOLLOW_TEXTS, NEWS_TEXTS } from '../apps/web/src/ui/follows/messages.ts';
import { createVerifiedUser, mailLink } from './support/accounts.ts';
import { callAs, tokenOf } from './support/api.ts';
import { runCli } from './support/cli.ts';
import { test, expect, DEMO_ADMIN } from './support/fixtures.ts';
import { logIn } from './support/login.ts';

test('follow from a release page, see it in /account, unfollow; buy with the box ticked and the artist is followed', async ({ page, request }) => {
  test.setTimeout(90_000);
  const suffix = Date.now().toString(36);
  const artistName = `E2E Follow Owls ${suffix}`;
  const title = `E2E Follow Tape ${suffix}`;
  const admin = await tokenOf(request, DEMO_ADMIN);
  const { id: artistId } = await callAs(request, admin, 'saveArtist', { name: artistName, links: [] });
  const { id: releaseId } = await callAs(request, admin, 'saveRelease', {
    kind: 'ep',
    title,
    artist: artistName,
    releaseDate: '2026-05-01',
    priceCents: 500,
    published: true,
    tracks: [{ title: 'Follow one' }],
  });
  await callAs(request, admin, 'linkArtist', { artistId, subject: { kind: 'release', id: releaseId }, linked: true });

  // Signed out: the page asks the visitor to log in first.
  await page.goto(`/music/${releaseId}`);
  await expect(page.getByRole('heading', { name: title, level: 1 })).toBeVisible();
  await expect(page.getByRole('link', { name: FOLLOW_TEXTS.signIn })).toBeVisible();
  await expect(page.getByRole('button', { name: FOLLOW_TEXTS.follow(artistName) })).toHaveCount(0);

  const fan = await createVerifiedUser(request);
  await runCli(['grant-credits', fan.email, '20']);
  await logIn(page, fan);

  // A second tab on /account: it hears the follow made in the first.
  const account = await page.context().newPage();
  await account.goto('/account');
  const follows = account.getByRole('region', { name: 'Following' });
  await expect(follows).toContainText('You follow nobody yet.');

  await page.goto(`/music/${releaseId}`);
  await page.getByRole('button', { name: FOLLOW_TEXTS.follow(artistName) }).click();
  const following = page.getByRole('button', { name: FOLLOW_TEXTS.following(artistName) });
  await expect(following).toHaveAttribute('aria-pressed', 'true');
  await expect(follows.getByRole('link', { name: artistName })).toBeVisible();

  // Unfollowed in /account: the release page's button turns back (live), with no reload.
  await follows.getByRole('button', { name: `Unfollow ${artistName}` }).click();
  await expect(follows).toContainText('You follow nobody yet.');
  await expect(page.getByRole('button', { name: FOLLOW_TEXTS.follow(artistName) })).toHaveAttribute('aria-pressed', 'false');
  await account.close();

  // Buying with the box ticked (its default) follows the release's artist.
  await page.getByRole('button', { name: /^Buy the ep/ }).click();
  await page.getByRole('button', { name: /^Cart, 1 item$/ }).click();
  await page.getByRole('dialog', { name: 'Cart' }).getByRole('button', { name: 'Checkout' }).click();
  await page.getByRole('dialog', { name: CHECKOUT_MESSAGES.walletPrompt }).getByRole('button', { name: 'Yes' }).click();
  await expect(page).toHaveURL(/\/checkout$/);
  await expect(page.getByRole('checkbox', { name: CHECKOUT_TEXTS.followArtists })).toBeChecked();
  // Consent is its own box, never ticked for the fan (decision 074): ticked here, it is recorded apart from the order.
  const news = page.getByRole('checkbox', { name: NEWS_TEXTS.box });
  await expect(news).not.toBeChecked();
  await news.check();
  await page.getByRole('button', { name: 'Place order' }).click();
  await expect(page).toHaveURL(/\/order-confirmation\?/);
  await page.goto('/account');
  await expect(page.getByRole('region', { name: 'Following' }).getByRole('link', { name: artistName })).toBeVisible();
  await expect(page.getByRole('button', { name: `Unfollow ${artistName}` })).toBeVisible();
  await expect(page.getByTestId('news-state')).toHaveText(NEWS_TEXTS.accountOn);
  // Withdrawn in one click.
  await page.getByRole('button', { name: NEWS_TEXTS.stop }).click();
  await expect(page.getByTestId('news-state')).toHaveText(NEWS_TEXTS.accountOff);
});

test('a signed-out visitor signs up on the public form, confirms by the mailed link and stops the news from the link', async ({ page, request }) => {
  const email = `e2e-news-${Date.now().toString(36)}@example.com`;
  await page.goto('/artists');
  const form = page.getByRole('region', { name: NEWS_TEXTS.formTitle });
  await form.getByLabel(NEWS_TEXTS.emailLabel).fill(email);
  await form.getByRole('button', { name: NEWS_TEXTS.submit }).click();
  await expect(form.getByRole('status')).toHaveText(NEWS_TEXTS.sent);

  // The mail's first link confirms, by a button (a GET alone changes nothing).
  const confirm = await mailLink(request, email, 'Confirm your news');
  expect(confirm).toMatch(/^\/news\/confirm\?token=/);
  await page.context().clearCookies();
  await page.goto(confirm);
  await page.getByRole('button', { name: 'Confirm' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('You will get our news.');

  // Its leave link works signed out, with no cookie: a button, then the news stop.
  const leave = await mailLink(request, email, 'Confirm your news', '/news/leave');
  await page.context().clearCookies();
  await page.goto(leave);
  await page.getByRole('button', { name: 'Stop the news' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('You will get no more news.');
});
