import { eq, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIGITAL_MESSAGES } from '@storefront/domain/digital.ts';
import { todayIn } from '@storefront/domain/sales.ts';
import { UPLOAD_MESSAGES } from '@storefront/domain/storage.ts';
import { createAuthClient } from '@storefront/sdk/auth.ts';
import { createFunctionsClient } from '@storefront/sdk/callable.ts';
import { hashSessionToken } from '../src/accounts/session-token.ts';
import { createAccount } from '../src/accounts/accounts.service.ts';
import { releaseProduct } from '../src/catalog/catalog.service.ts';
import { orders, sessions } from '../src/db/schema/index.ts';
import { signInvitationLink } from '../src/royalties/invitation-links.ts';
import { createServiceToken } from '../src/service/service.tokens.ts';
import { grantCredits } from '../src/wallet/wallet.commands.ts';
import { startTestApp, type TestApp } from './app.ts';
import type { TestDatabase } from './database.ts';

/**
 * The access-control matrix: every callable function and every HTTP route, for every
 * kind of caller. The expected outcome of each is written here once; a function or
 * route added without an entry fails this test.
 */
type Role = 'anonymous' | 'user' | 'otherUser' | 'admin' | 'serviceToken' | 'revokedSession' | 'expiredSession';
const ROLES: Role[] = ['anonymous', 'user', 'otherUser', 'admin', 'serviceToken', 'revokedSession', 'expiredSession'];
type Access = 'public' | 'signed-in' | 'admin';

const FUNCTIONS: Record<string, Access> = {
  listHistory: 'public',
  createAccount: 'public',
  getAssetsSummary: 'public',
  getProfile: 'signed-in',
  recordDeviceToken: 'signed-in',
  quoteCheckout: 'signed-in',
  completeWalletOnlyOrderStreetFlavor: 'signed-in',
  createPaymentLinkStreetFlavorMerch: 'signed-in',
  getOpenPayment: 'signed-in',
  cancelOpenPayment: 'signed-in',
  listMyOrders: 'signed-in',
  getMyOrder: 'signed-in',
  getWallet: 'signed-in',
  listWalletHistory: 'signed-in',
  listSavedAddresses: 'signed-in',
  deleteSavedAddress: 'signed-in',
  changePassword: 'signed-in',
  requestEmailChange: 'signed-in',
  confirmEmailChange: 'public',
  updateProfile: 'signed-in',
  getDeletionSummary: 'signed-in',
  deleteAccount: 'signed-in',
  exportMyData: 'signed-in',
  getDat: 'signed-in',
  createOrRetrieveAccount: 'signed-in',
  createStripeOnboardingLinkIOS: 'signed-in',
  getCashout: 'signed-in',
  requestPayout: 'signed-in',
  releaseBizarreProduct: 'admin',
  editBizarreProduct: 'admin',
  setVariantStock: 'admin',
  listLowStock: 'admin',
  listOpenOrders: 'admin',
  markOrderFulfilled: 'admin',
  refundOrder: 'admin',
  retryRefund: 'admin',
  shipOrderPart: 'admin',
  markOrdersFulfilled: 'admin',
  listOrders: 'admin',
  getOrder: 'admin',
  listAllProducts: 'admin',
  setProductActive: 'admin',
  moveProduct: 'admin',
  deleteProduct: 'admin',
  listAdminActivity: 'admin',
  listAdmins: 'admin',
  setAdmin: 'admin',
  getSalesOverview: 'admin',
  getShippingTaxConfig: 'admin',
  saveShippingTaxConfig: 'admin',
  listCategories: 'public',
  createCategory: 'admin',
  renameCategory: 'admin',
  moveCategory: 'admin',
  deleteCategory: 'admin',
  listNeedsAttention: 'admin',
  resolveNeedsAttention: 'admin',
  createDiscountCode: 'admin',
  listDiscountCodes: 'admin',
  setDiscountCodeActive: 'admin',
  returnDiscountUse: 'admin',
  setProductGiftCard: 'admin',
  redeemGiftCard: 'signed-in',
  listGiftCards: 'admin',
  resendGiftCard: 'admin',
  saveBundle: 'admin',
  listBundles: 'admin',
  saveHomePage: 'admin',
  saveTextPage: 'admin',
  saveHistory: 'admin',
  setContactEmail: 'admin',
  saveRelease: 'admin',
  listReleases: 'admin',
  setTrackMaster: 'admin',
  retryTrackEncoding: 'admin',
  createDownloadCodes: 'admin',
  listDownloadCodes: 'admin',
  getRelease: 'public',
  redeemDownloadCode: 'signed-in',
  getLibrary: 'signed-in',
  createDownloadLink: 'signed-in',
  setProductRelease: 'admin',
  scheduleDrop: 'admin',
  editDrop: 'admin',
  cancelDrop: 'admin',
  postponeDrop: 'admin',
  listDrops: 'admin',
  getDropReport: 'admin',
  getDropReportCsv: 'admin',
  getWaitingDemand: 'admin',
  getDrop: 'public',
  getDropFairness: 'public',
  listOpenDrops: 'public',
  getDropChallenge: 'signed-in',
  joinDrop: 'signed-in',
  getMyDropState: 'signed-in',
  leaveDrop: 'signed-in',
  joinWaitlist: 'signed-in',
  leaveWaitlist: 'signed-in',
  leaveWaitlistByLink: 'public',
  getMyWaitlists: 'signed-in',
  // The roster (issue 36, decision 070).
  listArtists: 'public',
  getArtist: 'public',
  listRoster: 'admin',
  saveArtist: 'admin',
  linkArtist: 'admin',
  mergeArtist: 'admin',
  deleteArtist: 'admin',
  listRoyalties: 'admin',
  saveRoyaltyParty: 'admin',
  setRoyaltySplit: 'admin',
  addRecoupCost: 'admin',
  // Statements and payout runs (issue 36 parts 4-5, decision 077): the label's console.
  listRoyaltyStatements: 'admin',
  getRoyaltyStatement: 'admin',
  getRoyaltyStatementCsv: 'admin',
  issueRoyaltyStatement: 'admin',
  setRoyaltyPayoutAccount: 'admin',
  runRoyaltyPayouts: 'admin',
  listRoyaltyPayouts: 'admin',
  // The parties' portal (issue 36 part 6, decision 080): the label invites; an account reads only the parties it holds (IDOR below).
  inviteRoyaltyParty: 'admin',
  listRoyaltyInvitations: 'admin',
  revokeRoyaltyInvitation: 'admin',
  acceptRoyaltyInvitation: 'signed-in',
  getMyRoyalties: 'signed-in',
  getMyRoyaltyStatement: 'signed-in',
  getMyRoyaltyStatementCsv: 'signed-in',
  connectRoyaltyPayouts: 'signed-in',
  // Fans' follows (issue 37, decision 074): a signed-in fan's own; a product's artists for everyone.
  listFollows: 'signed-in',
  setFollow: 'signed-in',
  listProductArtists: 'public',
  // Marketing consent (decision 074): the public form for anyone; the caller's own consent signed in.
  subscribeToNews: 'public',
  getMyConsent: 'signed-in',
  setMyConsent: 'signed-in',
  // Notify me (issue 37 part 4, decision 076): signed out by an address confirmed by a mailed link.
  notifyMeByEmail: 'public',
  confirmNotifyMe: 'public',
  // The wishlist (decision 076): a signed-in fan's own.
  listWishlist: 'signed-in',
  setWishlisted: 'signed-in',
  // Announcements (issue 37 part 3, decision 079): the label's console only.
  listAnnouncements: 'admin',
  saveAnnouncement: 'admin',
  getAnnouncement: 'admin',
  previewAnnouncement: 'admin',
  sendAnnouncementTest: 'admin',
  sendAnnouncement: 'admin',
  pauseAnnouncement: 'admin',
  resumeAnnouncement: 'admin',
  cancelAnnouncement: 'admin',
  listAnnouncementAutomations: 'admin',
  setAnnouncementAutomation: 'admin',
  // The label's list (issue 37 part 6, decision 078): the console's Audience tab.
  getAudience: 'admin',
  // The cart reminder (part 7): its setting for admins; its signed link's cart for anyone holding it.
  getAudienceSettings: 'admin',
  saveAudienceSettings: 'admin',
  restoreCart: 'public',
};

/** Who gets past authentication and authorisation, by access class. */
function allowed(access: Access, role: Role): 'pass' | 401 | 403 {
  const signedIn = role === 'user' || role === 'otherUser' || role === 'admin';
  if (access === 'public') return 'pass';
  if (!signedIn) return 401;
  if (access === 'admin' && role !== 'admin') return 403;
  return 'pass';
}

/**
 * HTTP routes by who may use them: 'public' pages and data, 'service' (service tokens
 * only), 'owner' (checked per object in the IDOR tests below), 'provider' (signed by
 * the payment provider), 'admin-write' (storage writes), 'dev' (development only),
 * 'sso' (the OpenID provider: client secret, PKCE and the shop session checked by the
 * library and the shop's sign-in step; proved cell by cell in src/oidc/oidc.test.ts),
 * 'operator' (METRICS_TOKEN only; src/metrics/metrics.test.ts).
 */
const ROUTES: Record<string, 'public' | 'service' | 'owner' | 'provider' | 'admin-write' | 'admin-read' | 'session' | 'dev' | 'sso' | 'operator'> = {
  'GET /healthz': 'public',
  'GET /readyz': 'public',
  'GET /metrics': 'operator',
  'GET /api/me': 'public',
  'GET /api/auth/*': 'session',
  'POST /api/auth/*': 'session',
  'POST /identitytoolkit.googleapis.com/v1/*': 'public',
  'POST /securetoken.googleapis.com/v1/token': 'public',
  'GET /oidc/*': 'sso',
  'POST /oidc/*': 'sso',
  'GET /sso/interaction/:uid': 'sso',
  'GET /mydat/profile/:username': 'public',
  'GET /dev/mailbox': 'dev',
  // Consent's mailed links (decision 074): signed tokens, no cookie; a GET changes nothing.
  'GET /news/confirm': 'public',
  'POST /news/confirm': 'public',
  'GET /news/leave': 'public',
  'POST /news/leave': 'public',
  'POST /fn/:name': 'public',
  'GET /api/pages/:slug': 'public',
  'GET /api/site': 'public',
  'GET /api/products': 'public',
  'GET /api/products/:id': 'public',
  'GET /api/live': 'public',
  // The published contract (decision 048): the same document for every caller.
  'GET /api/openapi.json': 'public',
  'GET /api/docs': 'public',
  'POST /api/service/wallet-credits': 'service',
  'POST /api/service/dats': 'service',
  'POST /api/service/metrics': 'service',
  'POST /api/service/utility-spend': 'service',
  'POST /api/service/credit-strings': 'service',
  'POST /api/service/reward-tokens': 'service',
  'POST /api/service/wallet-entries': 'service',
  'POST /webhooks/stripe': 'provider',
  'GET /api/admin/packing-list': 'admin-read',
  // The Audience tab's files (decision 078): the consenting fans' CSV and the import of a CSV.
  'GET /api/admin/audience.csv': 'admin-read',
  'POST /api/admin/audience/import': 'admin-write',
  'GET /pay/return': 'public',
  'GET /pay/:id': 'owner',
  'POST /pay/:id': 'owner',
  'POST /pay/:id/cancel': 'owner',
  'GET /payouts/onboard': 'owner',
  'POST /payouts/onboard': 'owner',
  'GET /v0/b/:bucket/o/*': 'public',
  // Listing: the read rule of the folder (products/ public, the rest admins'), in test/conformance/firebase-sdk.test.ts.
  'GET /v0/b/:bucket/o': 'public',
  'PATCH /v0/b/:bucket/o/*': 'admin-write',
  'DELETE /v0/b/:bucket/o/*': 'admin-write',
  'POST /v0/b/:bucket/o': 'admin-write',
  'PUT /v0/b/:bucket/o': 'admin-write',
  'GET /img/:bucket/*': 'public',
  'GET /content/covers/*': 'public',
  // Digital releases (issue 28): previews of published releases; downloads by signed link, checked against the owner (IDOR below).
  'GET /api/digital/tracks/:trackId/preview': 'public',
  'GET /dl/*': 'owner',
};

let shop: TestApp;
let database: TestDatabase;
let app: FastifyInstance;
let base: string;
const headers: Record<Role, Record<string, string>> = {} as never;
let productId: string;

async function signIn(email: string) {
  return (await createAuthClient({ baseUrl: base, functions: createFunctionsClient({ baseUrl: base }) }).signIn(email, 'pass words')).token!;
}

beforeAll(async () => {
  shop = await startTestApp({
    config: { env: { SIGNUP_RATE_LIMIT: '1000' } },
    async seed({ db, config }) {
      for (const [email, role] of [
        ['user@example.org', 'user'],
        ['other@example.org', 'user'],
        ['admin@example.org', 'admin'],
        ['revoked@example.org', 'user'],
        ['expired@example.org', 'user'],
      ] as const) {
        const name = email.split('@')[0]!;
        await createAccount(
          db,
          config,
          { email, username: name, name, password: 'pass words', confirmPassword: 'pass words', acceptedTerms: true },
          { emailVerified: true, role, allowReservedUsername: true },
        );
      }
      productId = await releaseProduct(db, { name: 'Tee', description: 'Tee', priceCents: 2500, images: ['/content/covers/cover-01.svg'] });
      await grantCredits(db, 'user@example.org', '100', 'matrix');
    },
  });
  ({ app, database, baseUrl: base } = shop);
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  headers.anonymous = {};
  headers.user = bearer(await signIn('user@example.org'));
  headers.otherUser = bearer(await signIn('other@example.org'));
  headers.admin = bearer(await signIn('admin@example.org'));
  headers.serviceToken = bearer((await createServiceToken(database.db, 'matrix')).token);
  const revoked = await signIn('revoked@example.org');
  await createAuthClient({ baseUrl: base, functions: createFunctionsClient({ baseUrl: base }), getAuthToken: () => revoked }).signOut();
  headers.revokedSession = bearer(revoked);
  const expired = await signIn('expired@example.org');
  await database.db
    .update(sessions)
    .set({ expiresAt: new Date(Date.now() - 60_000) })
    .where(eq(sessions.token, hashSessionToken(expired.split('.')[0]!)));
  headers.expiredSession = bearer(expired);
});

afterAll(async () => {
  await shop?.close();
});

describe('the matrix covers everything the server exposes', () => {
  it('has an entry for every callable function, with the access it declares', () => {
    const declared = Object.fromEntries(app.callableFunctions.map((fn) => [fn.name, fn.access]));
    expect(declared).toEqual(FUNCTIONS);
  });

  it('has an entry for every HTTP route', () => {
    // The web build's files; a route under /api/ is ours even when it ends like a file name (/api/openapi.json).
    const isStaticFile = (url: string) => url.startsWith('/assets/') || (!url.startsWith('/api/') && /\.[a-z0-9]+$/i.test(url));
    const served = [...new Set(app.httpRoutes.filter((r) => !isStaticFile(r.url)).map((r) => `${r.method} ${r.url}`))].sort();
    expect(served).toEqual(Object.keys(ROUTES).sort());
  });
});

describe('callable functions x roles', () => {
  const cells = Object.entries(FUNCTIONS).flatMap(([name, access]) => ROLES.map((role) => [name, role, allowed(access, role)] as const));
  it.each(cells)('%s as %s: %s', async (name, role, expected) => {
    const response = await fetch(`${base}/fn/${name}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers[role] }, body: JSON.stringify({ data: {} }) });
    if (expected === 'pass') expect([401, 403]).not.toContain(response.status);
    else expect(response.status).toBe(expected);
    expect(response.status).toBeLessThan(500);
  });
});

describe('service routes x roles', () => {
  const cells = Object.entries(ROUTES)
    .filter(([, kind]) => kind === 'service')
    .flatMap(([route]) => ROLES.map((role) => [route, role] as const));
  it.each(cells)('%s as %s', async (route, role) => {
    const response = await fetch(`${base}${route.split(' ')[1]}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers[role] }, body: '{}' });
    // Only a service token gets as far as input validation.
    expect(response.status).toBe(role === 'serviceToken' ? 400 : 401);
  });
});

describe('storage writes x roles', () => {
  it.each(ROLES)('multipart upload under products/ as %s', async (role) => {
    const response = await fetch(`${base}/v0/b/storefront/o?name=${encodeURIComponent('products/x.png')}&uploadType=multipart`, {
      method: 'POST',
      headers: { 'content-type': 'multipart/related; boundary=b', ...headers[role] },
      body: '--b\r\nContent-Type: application/json\r\n\r\n{}\r\n--b\r\nContent-Type: image/png\r\n\r\nnot a png\r\n--b--',
    });
    // The admin gets past the rules to the content check, which refuses a non-image with 403 too (decision 029).
    const expected = role === 'admin' || role === 'user' || role === 'otherUser' ? 403 : 401;
    expect(response.status).toBe(expected);
    const message = ((await response.json()) as { error: { message: string } }).error.message;
    if (role === 'admin') expect(message).toBe(UPLOAD_MESSAGES.notAnImage);
    else expect(message).not.toBe(UPLOAD_MESSAGES.notAnImage);
  });

  it.each(ROLES)('metadata update under products/ as %s', async (role) => {
    const response = await fetch(`${base}/v0/b/storefront/o/${encodeURIComponent('products/none.png')}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json', ...headers[role] },
      body: '{"cacheControl":"no-store"}',
    });
    // The admin passes the rules and finds no such object.
    const expected = role === 'admin' ? 404 : role === 'user' || role === 'otherUser' ? 403 : 401;
    expect(response.status).toBe(expected);
  });
});

describe('the published contract x roles', () => {
  const cells = ['/api/openapi.json', '/api/docs'].flatMap((path) => ROLES.map((role) => [path, role] as const));
  it.each(cells)('%s as %s: the same answer', async (path, role) => {
    const response = await fetch(`${base}${path}`, { headers: headers[role] });
    expect(response.status).toBe(200);
    const anonymous = await fetch(`${base}${path}`);
    expect(await response.text()).toBe(await anonymous.text());
  });
});

describe('admin reads x roles', () => {
  it.each(ROLES)('the packing list CSV as %s', async (role) => {
    const response = await fetch(`${base}/api/admin/packing-list?status=all`, { headers: headers[role] });
    const expected = role === 'admin' ? 200 : role === 'user' || role === 'otherUser' ? 403 : 401;
    expect(response.status).toBe(expected);
    const body = await response.text();
    if (role === 'admin') expect(body).toContain('order_id,created_at');
    else expect(body).not.toContain('order_id,created_at');
  });
});

describe('the audience files x roles', () => {
  it.each(ROLES)('the consenting fans’ CSV as %s', async (role) => {
    const response = await fetch(`${base}/api/admin/audience.csv`, { headers: headers[role] });
    const expected = role === 'admin' ? 200 : role === 'user' || role === 'otherUser' ? 403 : 401;
    expect(response.status).toBe(expected);
    const body = await response.text();
    if (role === 'admin') expect(body).toContain('email,name,country');
    else expect(body).not.toContain('email,name,country');
  });

  it.each(ROLES)('an import as %s', async (role) => {
    const response = await fetch(`${base}/api/admin/audience/import`, {
      method: 'POST',
      headers: { 'content-type': 'text/csv', ...headers[role] },
      body: `email,date added\nmatrix-${role}@example.net,2020-01-01\n`,
    });
    const expected = role === 'admin' ? 200 : role === 'user' || role === 'otherUser' ? 403 : 401;
    expect(response.status).toBe(expected);
    const [row] = await database.db
      .execute(sql`SELECT count(*)::int AS n FROM marketing_consent WHERE email = ${`matrix-${role.toLowerCase()}@example.net`}`)
      .then((r) => r.rows as { n: number }[]);
    expect(row!.n).toBe(role === 'admin' ? 1 : 0);
  });
});

describe('one user can never reach another user’s data (IDOR)', () => {
  it('keeps orders, checkouts, payment pages, wallets and DATs to their owner', async () => {
    const call = (role: Role, name: string, data: unknown) =>
      fetch(`${base}/fn/${name}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers[role] }, body: JSON.stringify({ data }) }).then(async (r) => ({
        status: r.status,
        body: (await r.json()) as { data?: Record<string, unknown> },
      }));
    const contact = { name: 'U', email: 'user@example.org', phone: '' };
    const shipping = { name: 'U', line1: '1 St', city: 'X', state: 'IL', postal_code: '62701', country: 'US' };
    const quote = (await call('user', 'quoteCheckout', { items: [{ id: productId, qty: 1 }], useWallet: true })).body.data!;
    const placed = await call('user', 'completeWalletOnlyOrderStreetFlavor', { items: [{ id: productId, qty: 1 }], contact, shipping, quote, checkoutId: 'matrix-order-1' });
    expect(placed.status).toBe(200);
    const [order] = await database.db
      .select()
      .from(orders)
      .where(eq(orders.paymentIntentId, placed.body.data!.paymentIntentId as string));

    expect((await call('otherUser', 'getMyOrder', { paymentIntentId: order!.paymentIntentId })).body.data).toEqual({ order: null });
    expect(((await call('otherUser', 'listMyOrders', { limit: 100 })).body.data!.items as unknown[]).length).toBe(0);
    expect((await call('otherUser', 'getWallet', null)).body.data).toMatchObject({ balanceCents: 0 });
    expect((await call('otherUser', 'listWalletHistory', null)).body.data).toEqual({ entries: [], next: null });
    // The order's address was saved for its buyer only, and no one else can delete it.
    const saved = (await call('user', 'listSavedAddresses', null)).body.data!.addresses as { id: string; line1: string }[];
    expect(saved.map((address) => address.line1)).toEqual(['1 St']);
    expect((await call('otherUser', 'listSavedAddresses', null)).body.data).toEqual({ addresses: [] });
    await call('otherUser', 'deleteSavedAddress', { id: saved[0]!.id });
    expect(((await call('user', 'listSavedAddresses', null)).body.data!.addresses as unknown[]).length).toBe(1);
    // The data download holds the caller's own rows only.
    const theirExport = JSON.stringify((await call('otherUser', 'exportMyData', null)).body.data);
    for (const foreign of [order!.id, order!.paymentIntentId, 'user@example.org', '1 St']) expect(theirExport).not.toContain(foreign);
    expect(JSON.stringify((await call('user', 'exportMyData', null)).body.data)).toContain(order!.id);
    const mine = (await call('user', 'listWalletHistory', { limit: 100 })).body.data!.entries as { kind: string; order: { id: string } | null }[];
    expect(mine.find((entry) => entry.kind === 'debit')?.order?.id).toBe(order!.id);
    // Reusing another user's checkout id makes a separate order for the caller, never returns theirs.
    const replay = await call('otherUser', 'completeWalletOnlyOrderStreetFlavor', { items: [{ id: productId, qty: 1 }], contact, shipping, quote, checkoutId: 'matrix-order-1' });
    expect(replay.body.data?.orderId).not.toBe(order!.id);

    await grantCredits(database.db, 'user@example.org', '1', 'matrix-card');
    const link = await call('user', 'createPaymentLinkStreetFlavorMerch', { items: [{ id: productId, qty: 5 }], useWallet: true, contact, shipping });
    const url = link.body.data!.url as string;
    expect((await fetch(`${base}${url}`, { headers: headers.otherUser })).status).toBe(404);
    expect((await fetch(`${base}${url}`, { headers: headers.anonymous })).status).toBe(404);
    const forged = await fetch(`${base}${url}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { ...headers.otherUser, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'card=4242424242424242',
    });
    expect(forged.status).toBe(404);
    for (const role of ['otherUser', 'anonymous'] as const) {
      const cancel = await fetch(`${base}${url}/cancel`, {
        method: 'POST',
        redirect: 'manual',
        headers: { ...headers[role], 'content-type': 'application/x-www-form-urlencoded' },
        body: '',
      });
      expect(cancel.status).toBe(404);
    }
    // The open payment is the owner's alone: another user neither sees it nor cancels it.
    expect((await call('otherUser', 'getOpenPayment', null)).body.data).toEqual({ checkout: null });
    expect((await call('otherUser', 'cancelOpenPayment', { checkoutId: link.body.data!.checkoutId })).body.data).toEqual({ cancelled: false });
    expect(((await call('user', 'getOpenPayment', null)).body.data!.checkout as { checkoutId: string }).checkoutId).toBe(link.body.data!.checkoutId);
    const [pending] = await database.db.execute(sql`SELECT status FROM checkout WHERE id = ${url.split('/').pop()}`).then((r) => r.rows as { status: string }[]);
    expect(pending!.status).toBe('pending');
    const count = await database.db.execute(sql`SELECT count(*)::int AS n FROM "order" WHERE checkout_id = ${url.split('/').pop()}`);
    expect((count.rows[0] as { n: number }).n).toBe(0);
  });

  it('keeps digital releases, codes and download links to their owner', async () => {
    const call = (role: Role, name: string, data: unknown) =>
      fetch(`${base}/fn/${name}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers[role] }, body: JSON.stringify({ data }) }).then(async (r) => ({
        status: r.status,
        body: (await r.json()) as { data?: Record<string, unknown>; error?: { message: string } },
      }));
    const release = (await call('admin', 'saveRelease', { kind: 'ep', title: 'Matrix EP', artist: 'A', releaseDate: '2026-01-01', priceCents: 500, tracks: [{ title: 'One' }] }))
      .body.data!;
    const trackId = (release.trackIds as number[])[0]!;
    const code = ((await call('admin', 'createDownloadCodes', { releaseId: release.id, count: 1 })).body.data!.codes as string[])[0]!;
    expect((await call('user', 'redeemDownloadCode', { code })).status).toBe(200);
    // The code is spent; another user's library stays empty and they get no link to it.
    expect((await call('otherUser', 'redeemDownloadCode', { code })).body.error?.message).toBe(DIGITAL_MESSAGES.codeUsed);
    expect((await call('otherUser', 'getLibrary', null)).body.data).toEqual({ releases: [] });
    expect(((await call('user', 'getLibrary', null)).body.data!.releases as { id: number }[]).map((entry) => entry.id)).toEqual([release.id]);
    for (const data of [
      { releaseId: release.id, format: 'flac' },
      { releaseId: release.id, trackId, format: 'mp3-320' },
    ]) {
      expect(await call('otherUser', 'createDownloadLink', data)).toMatchObject({ status: 403, body: { error: { message: DIGITAL_MESSAGES.notOwned } } });
    }
    // The owner's link reaches the files (none encoded yet); one re-pointed at another user is refused.
    const url = (await call('user', 'createDownloadLink', { releaseId: release.id, format: 'flac' })).body.data!.url as string;
    const owner = await fetch(`${base}${url}`);
    expect(await owner.json()).toMatchObject({ error: { message: DIGITAL_MESSAGES.notEncoded } });
    const [payload, signature] = url.slice('/dl/'.length).split('.');
    const [, ...rest] = JSON.parse(Buffer.from(payload!, 'base64url').toString()) as unknown[];
    const [other] = await database.db.execute(sql`SELECT id FROM "user" WHERE email = 'other@example.org'`).then((r) => r.rows as { id: string }[]);
    const swapped = Buffer.from(JSON.stringify([other!.id, ...rest])).toString('base64url');
    expect((await fetch(`${base}/dl/${swapped}.${signature}`, { headers: headers.otherUser })).status).toBe(404);
    // Masters are the admins' alone.
    for (const role of ['user', 'otherUser'] as const) {
      expect((await fetch(`${base}/v0/b/storefront/o/${encodeURIComponent('masters/1/1.wav')}?alt=media`, { headers: headers[role] })).status).toBe(403);
    }
  });

  it('keeps a party’s royalties to the accounts it invited: an artist reads only their own statements and sales, a shopper none', async () => {
    const call = (role: Role, name: string, data: unknown) =>
      fetch(`${base}/fn/${name}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers[role] }, body: JSON.stringify({ data }) }).then(async (r) => ({
        status: r.status,
        body: (await r.json()) as { data?: Record<string, unknown>; error?: { message: string } },
      }));
    const period = todayIn(shop.config.LABEL_TIME_ZONE).slice(0, 7);
    const artistId = (await call('admin', 'saveArtist', { name: 'Matrix Artist', links: [] })).body.data!.id as number;
    const artistParty = (await call('admin', 'saveRoyaltyParty', { kind: 'artist', name: 'Matrix Artist', artistId })).body.data!.id as number;
    const otherParty = (await call('admin', 'saveRoyaltyParty', { kind: 'producer', name: 'Matrix Producer' })).body.data!.id as number;
    const own = (await call('admin', 'issueRoyaltyStatement', { partyId: artistParty, period })).body.data!.id as number;
    const foreign = (await call('admin', 'issueRoyaltyStatement', { partyId: otherParty, period })).body.data!.id as number;
    const invited = (await call('admin', 'inviteRoyaltyParty', { partyId: artistParty, email: 'user@example.org' })).body.data!;
    const token = signInvitationLink(shop.config.AUTH_SECRET, invited.id as string, new Date(invited.expiresAt as string));
    expect((await call('user', 'acceptRoyaltyInvitation', { token })).status).toBe(200);

    // The artist (user): their party only, their statement only.
    const mine = (await call('user', 'getMyRoyalties', null)).body.data!.parties as { party: { name: string } }[];
    expect(mine.map((entry) => entry.party.name)).toEqual(['Matrix Artist']);
    expect((await call('user', 'getMyRoyaltyStatement', { statementId: own })).status).toBe(200);
    for (const name of ['getMyRoyaltyStatement', 'getMyRoyaltyStatementCsv']) {
      expect((await call('user', name, { statementId: foreign })).status).toBe(404);
    }
    expect((await call('user', 'connectRoyaltyPayouts', { partyId: otherParty })).status).toBe(404);
    // The label's own reads stay the label's.
    for (const name of ['listRoyalties', 'listRoyaltyStatements', 'listRoyaltyPayouts', 'listRoyaltyInvitations']) expect((await call('user', name, null)).status).toBe(403);
    // A shopper (otherUser): nothing, and no way in to the artist's statement or payouts.
    expect((await call('otherUser', 'getMyRoyalties', null)).body.data).toEqual({ parties: [] });
    expect((await call('otherUser', 'getMyRoyaltyStatement', { statementId: own })).status).toBe(404);
    expect((await call('otherUser', 'getMyRoyaltyStatementCsv', { statementId: own })).status).toBe(404);
    expect((await call('otherUser', 'connectRoyaltyPayouts', { partyId: artistParty })).status).toBe(404);
    // The link was used: a second account cannot take it.
    expect((await call('otherUser', 'acceptRoyaltyInvitation', { token })).status).toBe(400);
    // An admin keeps full access.
    expect((await call('admin', 'getMyRoyaltyStatement', { statementId: foreign })).status).toBe(200);
  });
});
