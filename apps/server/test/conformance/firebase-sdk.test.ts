import { eq } from 'drizzle-orm';
import { deleteApp, initializeApp, type FirebaseApp } from 'firebase/app';
import { connectAuthEmulator, getAuth, signInWithCustomToken, signOut, type AuthError } from 'firebase/auth';
import { getFunctions, httpsCallable, type FunctionsError } from 'firebase/functions';
import {
  connectStorageEmulator,
  getDownloadURL,
  getMetadata,
  getStorage,
  listAll,
  ref,
  updateMetadata,
  uploadBytes,
  uploadBytesResumable,
  type StorageError,
} from 'firebase/storage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RELEASE_MESSAGES } from '@storefront/domain/catalog.ts';
import { quote as priceQuote } from '@storefront/domain/pricing.ts';
import { STORAGE_BUCKET, UPLOAD_MESSAGES } from '@storefront/domain/storage.ts';
import { createAccount } from '../../src/accounts/accounts.service.ts';
import { releaseProduct } from '../../src/catalog/catalog.service.ts';
import { productImages, products } from '../../src/db/schema/index.ts';
import { noisePng, solidImage } from '../../src/storage/testing/images.ts';
import { grantCredits } from '../../src/wallet/wallet.commands.ts';
import { startTestApp, type TestApp } from '../app.ts';
import { makeTempDir, type TestDatabase } from '../database.ts';
import { signInForToken } from '../sign-in.ts';

/**
 * Conformance (issue 19, decision 029): the official `firebase` 12 SDK in Node against a
 * running shop, configured only with the custom domain, the emulator host and the shop
 * token: every callable of the spec with its error codes, and the storage flow upload ->
 * getDownloadURL -> release.
 */
let shop: TestApp;
let database: TestDatabase;
let dataDir: ReturnType<typeof makeTempDir>;
let origin: string;
const tokens: Record<'admin' | 'fan', string> = { admin: '', fan: '' };
const apps: FirebaseApp[] = [];

beforeAll(async () => {
  dataDir = makeTempDir('conformance-firebase');
  shop = await startTestApp({
    config: { env: { DATA_DIR: dataDir.dir } },
    async seed({ db, config }) {
      for (const [email, username, role] of [
        ['boss@example.org', 'Boss', 'admin'],
        ['fan@example.org', 'FanOne', 'user'],
      ] as const) {
        await createAccount(
          db,
          config,
          { email, username, name: username, password: 'correct horse', confirmPassword: 'correct horse', acceptedTerms: true },
          { emailVerified: true, role },
        );
      }
    },
  });
  ({ database, baseUrl: origin } = shop);
  tokens.admin = await signInForToken(origin, 'boss@example.org');
  tokens.fan = await signInForToken(origin, 'fan@example.org');
});

afterAll(async () => {
  await Promise.all(apps.map((app) => deleteApp(app)));
  await shop?.close();
  dataDir?.remove();
});

// --- snippet: firebase-setup (README "Using the shop from another app") ---
/** A Firebase app pointed at the shop; `shopToken` is the signed session token (or undefined: anonymous). */
async function shopFirebase(shopOrigin: string, shopToken?: string) {
  const app = initializeApp({ projectId: 'storefront', apiKey: 'unused', storageBucket: 'storefront' }, `shop-${apps.length}`);
  // firebase/auth against the shop's Firebase Auth endpoints: the shop token is the custom
  // token, and the SDK hands it to functions (Bearer) and storage (Firebase) itself.
  const auth = getAuth(app);
  connectAuthEmulator(auth, shopOrigin, { disableWarnings: true });
  if (shopToken) await signInWithCustomToken(auth, shopToken);
  const functions = getFunctions(app, `${shopOrigin}/fn`);
  const storage = getStorage(app);
  const { hostname, port: shopPort } = new URL(shopOrigin);
  connectStorageEmulator(storage, hostname, Number(shopPort));
  return { app, auth, functions, storage };
}
// --- end snippet ---

async function client(who?: 'admin' | 'fan') {
  const shop = await shopFirebase(origin, who ? tokens[who] : undefined);
  apps.push(shop.app);
  return shop;
}

async function failure<T extends Error>(promise: Promise<unknown>): Promise<T> {
  return promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (error: unknown) => error as T,
  );
}

const productPath = (name: string) => `products/${Date.now()}-0-${name}`;

describe('signing in with firebase/auth (signInWithCustomToken against the shop)', () => {
  it('signs in with the shop token, describes the account, and hands the token to functions and storage', async () => {
    const { auth, functions } = await client('fan');
    expect(auth.currentUser).toMatchObject({ email: 'fan@example.org', emailVerified: true, displayName: 'FanOne', isAnonymous: false });
    expect(await auth.currentUser!.getIdToken()).toBe(tokens.fan);
    // A forced refresh goes through the token endpoint and keeps the same live token.
    expect(await auth.currentUser!.getIdToken(true)).toBe(tokens.fan);
    const history = await httpsCallable<unknown, unknown>(functions, 'listHistory')();
    expect(history.data).toBeDefined();
    // Signed in as the fan: an admin function says permission-denied, not unauthenticated.
    const denied = await failure<FunctionsError>(httpsCallable(functions, 'releaseBizarreProduct')({ name: 'A', description: 'B', priceCents: 1, images: [] }));
    expect(denied.code).toBe('functions/permission-denied');
    await signOut(auth);
    const anonymous = await failure<FunctionsError>(httpsCallable(functions, 'releaseBizarreProduct')({ name: 'A', description: 'B', priceCents: 1, images: [] }));
    expect(anonymous.code).toBe('functions/unauthenticated');
  });

  it('refuses a token that is not the shop’s, and signs the SDK out when the shop session ends', async () => {
    const refused = await failure<AuthError>(client().then(({ auth }) => signInWithCustomToken(auth, 'forged.token')));
    expect(refused.code).toBe('auth/invalid-custom-token');
    expect(refused.message).toContain('This shop token is not valid');

    const token = await signInForToken(origin, 'fan@example.org');
    const { auth } = await client();
    await signInWithCustomToken(auth, token);
    await fetch(`${origin}/api/auth/sign-out`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '{}' });
    const expired = await failure<AuthError>(auth.currentUser!.getIdToken(true));
    expect(expired.code).toBe('auth/user-token-expired');
    expect(auth.currentUser).toBeNull();
  });

  it('answers unknown Firebase Auth endpoints with a JSON error', async () => {
    const response = await fetch(`${origin}/identitytoolkit.googleapis.com/v1/accounts:signUp?key=unused`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(response.status).toBe(404);
    expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(/^NOT_FOUND : /);
  });
});

describe('storage with the firebase SDK', () => {
  it('uploads, gives metadata in its shape and a download URL, and releases a product with it', async () => {
    const { storage, functions } = await client('admin');
    const path = productPath('cover.png');
    const result = await uploadBytes(ref(storage, path), await solidImage(300, 200), { contentType: 'image/png', customMetadata: { artist: 'Spndat' } });
    expect(result.metadata).toMatchObject({ fullPath: path, name: path.split('/').pop(), bucket: STORAGE_BUCKET, contentType: 'image/png' });

    const metadata = await getMetadata(ref(storage, path));
    expect(metadata).toMatchObject({ fullPath: path, name: path.split('/').pop(), customMetadata: { artist: 'Spndat' } });
    expect(metadata.size).toBeGreaterThan(0);

    // --- snippet: firebase-release ---
    const url = await getDownloadURL(ref(storage, path));
    const release = httpsCallable<unknown, { ok: boolean; id: string }>(functions, 'releaseBizarreProduct');
    const { data } = await release({ name: 'Conformance Tee', description: 'Printed by the SDK', priceCents: 2500, images: [url] });
    // --- end snippet ---
    expect(url).toMatch(new RegExp(`^${origin}/v0/b/storefront/o/products%2F.+\\?alt=media&token=`));
    expect(data.ok).toBe(true);
    // The bytes are there, and the product keeps the same-origin path of the URL.
    const bytes = await fetch(url);
    expect(bytes.status).toBe(200);
    expect(bytes.headers.get('content-type')).toBe('image/png');
    const stored = await database.db.select().from(productImages).where(eq(productImages.productId, data.id));
    expect(stored.map((row) => row.url)).toEqual([url.slice(origin.length)]);

    // Editing with the same absolute URL works too; another origin's URL is refused.
    const edit = httpsCallable(functions, 'editBizarreProduct');
    await edit({ id: data.id, name: 'Conformance Tee', description: 'Edited', priceCents: 2600, images: [url] });
    const [product] = await database.db.select().from(products).where(eq(products.id, data.id));
    expect(product?.priceCents).toBe(2600);
    const foreign = await failure<FunctionsError>(edit({ id: data.id, name: 'X', description: 'Y', priceCents: 100, images: [url.replace(origin, 'http://evil.example')] }));
    expect([foreign.code, foreign.message]).toEqual(['functions/invalid-argument', 'Images must be uploaded to the shop first. [400]']);
  });

  it('uploads resumably, lists a folder and updates metadata', async () => {
    const { storage } = await client('admin');
    const folder = `products/conformance-${Date.now()}`;
    const { png } = await noisePng(400, 400);
    expect(png.length).toBeGreaterThan(262_144);
    const task = uploadBytesResumable(ref(storage, `${folder}/big.png`), png, { contentType: 'image/png' });
    const done = await task;
    expect(done.state).toBe('success');
    expect(done.metadata.fullPath).toBe(`${folder}/big.png`);
    await uploadBytes(ref(storage, `${folder}/inner/small.png`), await solidImage(10, 10));

    const listing = await listAll(ref(storage, folder));
    expect(listing.items.map((item) => item.fullPath)).toEqual([`${folder}/big.png`]);
    expect(listing.prefixes.map((prefix) => prefix.fullPath)).toEqual([`${folder}/inner`]);
    const top = await listAll(ref(storage, 'products'));
    expect(top.prefixes.map((prefix) => prefix.fullPath)).toContain(folder);

    const updated = await updateMetadata(ref(storage, `${folder}/big.png`), { cacheControl: 'public, max-age=60', customMetadata: { credit: 'label' } });
    expect(updated).toMatchObject({ cacheControl: 'public, max-age=60', customMetadata: { credit: 'label' }, fullPath: `${folder}/big.png` });
    expect((await getMetadata(ref(storage, `${folder}/big.png`))).customMetadata).toEqual({ credit: 'label' });
  });

  it('maps the shop’s refusals to the SDK’s error codes', async () => {
    const fan = await client('fan');
    const admin = await client('admin');
    const anonymous = await client();
    const image = await solidImage(10, 10);
    const denied = await failure<StorageError>(uploadBytes(ref(fan.storage, productPath('fan.png')), image));
    expect([denied.code, denied.status]).toEqual(['storage/unauthorized', 403]);
    const nobody = await failure<StorageError>(uploadBytes(ref(anonymous.storage, productPath('anon.png')), image));
    expect([nobody.code, nobody.status]).toEqual(['storage/unauthenticated', 401]);
    const missing = await failure<StorageError>(getMetadata(ref(admin.storage, 'products/none.png')));
    expect(missing.code).toBe('storage/object-not-found');
    const readOnly = await failure<StorageError>(updateMetadata(ref(fan.storage, 'products/none.png'), { cacheControl: 'no-store' }));
    expect(readOnly.code).toBe('storage/unauthorized');
    // Not an image: refused like a storage rule refuses (403).
    const text = await failure<StorageError>(uploadBytes(ref(admin.storage, productPath('notes.png')), new TextEncoder().encode('not a picture')));
    expect([text.code, text.status]).toEqual(['storage/unauthorized', 403]);
    // Private folders cannot be listed by shoppers.
    const list = await failure<StorageError>(listAll(ref(fan.storage, 'private')));
    expect(list.code).toBe('storage/unauthorized');
  });

  it('answers unknown /v0 routes and refused uploads with JSON errors in the storage shape', async () => {
    const unknown = await fetch(`${origin}/v0/nothing/here`);
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('content-type')).toMatch(/application\/json/);
    expect(((await unknown.json()) as { error: { code: number } }).error.code).toBe(404);
    const refused = await fetch(`${origin}/v0/b/storefront/o?name=products%2Fx.png&uploadType=multipart`, {
      method: 'POST',
      headers: { authorization: `Firebase ${tokens.admin}`, 'content-type': 'multipart/related; boundary=b' },
      body: '--b\r\nContent-Type: application/json\r\n\r\n{}\r\n--b\r\nContent-Type: image/png\r\n\r\nhello\r\n--b--',
    });
    expect(refused.status).toBe(403);
    // The sentence is the reason phrase too: browsers' storage SDK appends statusText, not the body (decision 035).
    expect(refused.statusText).toBe(UPLOAD_MESSAGES.notAnImage);
    expect(await refused.json()).toMatchObject({ error: { code: 403, message: UPLOAD_MESSAGES.notAnImage } });
  });
});

describe('callable functions with the firebase SDK', () => {
  const contact = { name: 'Fan One', email: 'fan@example.org', phone: '' };
  const shipping = { name: 'Fan One', line1: '1 Main St', line2: '', city: 'Springfield', state: 'IL', postal_code: '62701', country: 'US' };

  it('gives every error code the spec lists', async () => {
    const release = async (who?: 'admin' | 'fan') => httpsCallable((await client(who)).functions, 'releaseBizarreProduct');
    const input = { name: 'Tee', description: 'Tee', priceCents: 100, images: [] as string[] };
    const anonymous = await failure<FunctionsError>((await release())(input));
    expect(anonymous.code).toBe('functions/unauthenticated');
    const fan = await failure<FunctionsError>((await release('fan'))(input));
    expect(fan.code).toBe('functions/permission-denied');
    const invalid = await failure<FunctionsError>((await release('admin'))(input));
    expect([invalid.code, invalid.message]).toEqual(['functions/invalid-argument', `${RELEASE_MESSAGES.releaseImages} [400]`]);
    const missing = await failure<FunctionsError>(httpsCallable((await client('fan')).functions, 'noSuchFunction')({}));
    expect(missing.code).toBe('functions/not-found');
    const edit = await failure<FunctionsError>(
      httpsCallable(
        (await client('admin')).functions,
        'editBizarreProduct',
      )({ id: 'p_none', name: 'A', description: 'B', priceCents: 1, images: ['/content/covers/cover-01.svg'] }),
    );
    expect(edit.code).toMatch(/^functions\/(not-found|failed-precondition)$/);
  });

  it('places a wallet-only order and starts a card payment', async () => {
    const teeId = await releaseProduct(database.db, { name: 'Label Tee', description: 'Tee', priceCents: 2500, images: ['/content/covers/cover-01.svg'] });
    await grantCredits(database.db, 'fan@example.org', '100', 'conformance');
    const { functions } = await client('fan');
    const quote = priceQuote([{ unitCents: 2500, qty: 1 }], 10_000, true);
    const order = await httpsCallable<unknown, { ok: boolean; redirectUrl: string }>(
      functions,
      'completeWalletOnlyOrderStreetFlavor',
    )({
      items: [{ id: teeId, qty: 1 }],
      contact,
      shipping,
      quote,
      checkoutId: `conformance-${Date.now()}`,
    });
    expect(order.data.ok).toBe(true);
    const link = await httpsCallable<unknown, { ok: boolean; url: string }>(
      functions,
      'createPaymentLinkStreetFlavorMerch',
    )({
      items: [{ id: teeId, qty: 1 }],
      useWallet: false,
      contact,
      shipping,
    });
    expect(link.data.url).toMatch(/\/pay\//);
    const tampered = await failure<FunctionsError>(
      httpsCallable(
        functions,
        'completeWalletOnlyOrderStreetFlavor',
      )({ items: [{ id: teeId, qty: 1 }], contact, shipping, quote: { ...quote, totalCents: 1 }, checkoutId: 'tampered' }),
    );
    expect(tampered.code).toMatch(/^functions\/(failed-precondition|invalid-argument|aborted)$/);
  });

  it('creates a payout account and an onboarding link', async () => {
    const { functions } = await client('fan');
    const account = await httpsCallable<unknown, { stripeAccountId: string; payouts_enabled: boolean }>(functions, 'createOrRetrieveAccount')({ email: 'fan@example.org' });
    expect(account.data.stripeAccountId).toBeTruthy();
    const link = await httpsCallable<unknown, { url: string }>(functions, 'createStripeOnboardingLinkIOS')();
    expect(link.data.url).toMatch(/^(https?:\/\/|\/)\S+/);
  });
});
