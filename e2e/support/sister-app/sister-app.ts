// A sister product's web page, bundled by firebase-sdk.spec.ts from the official `firebase`
// SDK (its browser build) and served either on the shop's origin or on another origin
// listed in CORS_ORIGINS. Configuration only: the custom domain of the functions, the
// emulator host of auth and storage, and the shop token as the custom token. Every step
// writes its outcome into the page (<li data-step="...">), which the test reads.
import { EventSource as FetchEventSource } from 'eventsource';
import { initializeApp } from 'firebase/app';
import { connectAuthEmulator, getAuth, signInWithCustomToken } from 'firebase/auth';
import { getFunctions, httpsCallable, type FunctionsError } from 'firebase/functions';
import {
  connectStorageEmulator,
  deleteObject,
  getBlob,
  getBytes,
  getDownloadURL,
  getMetadata,
  getStorage,
  listAll,
  ref,
  uploadBytes,
  uploadBytesResumable,
  type StorageError,
} from 'firebase/storage';

const params = new URLSearchParams(location.hash.slice(1));
const shop = params.get('shop') ?? location.origin;
const steps = document.getElementById('steps')!;

function report(step: string, outcome: unknown) {
  const item = document.createElement('li');
  item.dataset.step = step;
  item.textContent = JSON.stringify(outcome);
  steps.append(item);
}

async function failure(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await promise;
    return { code: 'none', message: 'no error' };
  } catch (error) {
    const { code, message } = error as FunctionsError | StorageError;
    return { code, message };
  }
}

/** The shop token: given by the sister product's backend, or (on the shop's own origin) from signing in there. */
async function shopToken(): Promise<string> {
  const given = params.get('token');
  if (given) return given;
  const response = await fetch(`${shop}/api/auth/sign-in/email`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: params.get('email'), password: params.get('password') }),
  });
  const token = response.headers.get('set-auth-token');
  if (!response.ok || !token) throw new Error(`sign-in failed: ${response.status}`);
  return token;
}

/** A PNG of random pixels (about 4 bytes a pixel: several upload chunks of 256 KiB). */
async function noisePng(size: number): Promise<Blob> {
  const canvas = new OffscreenCanvas(size, size);
  const context = canvas.getContext('2d')!;
  const pixels = context.createImageData(size, size);
  const random = new Uint8Array(65_536);
  for (let offset = 0; offset < pixels.data.length; offset += random.length) {
    crypto.getRandomValues(random);
    pixels.data.set(random.subarray(0, Math.min(random.length, pixels.data.length - offset)), offset);
  }
  for (let alpha = 3; alpha < pixels.data.length; alpha += 4) pixels.data[alpha] = 255;
  context.putImageData(pixels, 0, 0);
  return canvas.convertToBlob({ type: 'image/png' });
}

/**
 * The first `ready` of /api/live, opened as a page on this origin opens it (decision 041):
 * the browser's EventSource, or with `token` the `eventsource` package, whose fetch can
 * send the shop token (a browser's EventSource sends no headers; on another site the
 * SameSite=Lax shop cookie is not sent either).
 */
function liveReady(url: string, withCredentials: boolean, token?: string): Promise<{ signedIn: boolean }> {
  return new Promise((resolve, reject) => {
    const source = token
      ? new FetchEventSource(url, { fetch: (input, init) => fetch(input, { ...init, headers: { ...init?.headers, authorization: `Bearer ${token}` } }) })
      : new EventSource(url, { withCredentials });
    const timer = setTimeout(() => {
      source.close();
      reject(new Error(`no ready event from ${url} (withCredentials: ${withCredentials})`));
    }, 10_000);
    source.addEventListener('ready', (event) => {
      clearTimeout(timer);
      source.close();
      resolve(JSON.parse((event as MessageEvent<string>).data) as { signedIn: boolean });
    });
  });
}

function imageWidth(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const image = new Image();
    image.onload = () => resolve(image.naturalWidth);
    image.onerror = () => reject(new Error(`the image at ${url} did not load`));
    image.src = url;
  });
}

async function run() {
  // --- snippet: browser-setup (README "Using the shop from another app") ---
  const app = initializeApp({ projectId: 'storefront', apiKey: 'unused', storageBucket: 'storefront' });
  const auth = getAuth(app);
  connectAuthEmulator(auth, shop, { disableWarnings: true });
  const functions = getFunctions(app, `${shop}/fn`);
  const storage = getStorage(app);
  connectStorageEmulator(storage, new URL(shop).hostname, Number(new URL(shop).port));
  const token = await shopToken();
  const { user } = await signInWithCustomToken(auth, token);
  // --- end snippet ---
  report('signIn', { email: user.email, uid: user.uid, origin: location.origin });

  const history = await httpsCallable<unknown, { entries: unknown[] }>(functions, 'listHistory')();
  report('callable', { entries: Array.isArray(history.data.entries) });
  report('callableError', await failure(httpsCallable(functions, 'releaseBizarreProduct')({ name: 'Tee', description: 'Tee', priceCents: 100, images: [] })));
  report('missingFunction', await failure(httpsCallable(functions, 'noSuchFunction')({})));

  const folder = `products/sister-${Date.now()}`;
  const cover = ref(storage, `${folder}/cover.png`);
  const png = await noisePng(400);
  const progress: number[] = [];
  const task = uploadBytesResumable(cover, png, { contentType: 'image/png', customMetadata: { source: 'sister-app' } });
  task.on('state_changed', (snapshot) => progress.push(snapshot.bytesTransferred));
  const done = await task;
  report('upload', { state: done.state, totalBytes: done.totalBytes, size: png.size, storedSize: done.metadata.size, progress });

  const url = await getDownloadURL(cover);
  report('downloadUrl', { url, width: await imageWidth(url) });
  const metadata = await getMetadata(cover);
  report('metadata', { fullPath: metadata.fullPath, name: metadata.name, contentType: metadata.contentType, size: metadata.size, customMetadata: metadata.customMetadata });

  const extra = ref(storage, `${folder}/extra.png`);
  await uploadBytes(extra, await noisePng(8), { contentType: 'image/png' });
  const before = await listAll(ref(storage, folder));
  await deleteObject(extra);
  const after = await listAll(ref(storage, folder));
  report('list', { before: before.items.map((item) => item.fullPath), after: after.items.map((item) => item.fullPath) });
  report('deleted', await failure(getMetadata(extra)));

  report('refusedUpload', await failure(uploadBytes(ref(storage, `${folder}/notes.png`), new Blob(['not a picture'], { type: 'image/png' }))));

  const released = await httpsCallable<unknown, { ok: boolean; id: string }>(
    functions,
    'releaseBizarreProduct',
  )({
    name: `Sister Tee ${folder.slice(-6)}`,
    description: 'Released from a sister product’s page with the Firebase SDK.',
    priceCents: 2500,
    images: [url],
  });
  report('release', released.data);

  // Issue 24: the download URL the <img> above loaded (and the browser cached), fetched
  // with CORS; the same object through the SDK's authenticated reads; live updates.
  const fetched = await fetch(url);
  report('fetchAfterImage', { status: fetched.status, bytes: (await fetched.arrayBuffer()).byteLength });
  const blob = await getBlob(cover);
  const bytes = await getBytes(cover);
  report('bytes', { blob: blob.size, bytes: bytes.byteLength, type: blob.type });
  const live = `${shop}/api/live?topics=products`;
  report('live', {
    plain: await liveReady(live, false),
    withCredentials: await liveReady(live, true),
    withToken: await liveReady(`${shop}/api/live?topics=products,wallet`, false, token),
  });
}

run().then(
  () => report('done', true),
  (error: unknown) => report('failed', { message: String(error), code: (error as { code?: string }).code ?? null }),
);
