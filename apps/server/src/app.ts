import fs from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import path from 'node:path';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import compress from '@fastify/compress';
import fastifyStatic from '@fastify/static';
import { sql } from 'drizzle-orm';
import { takesTestPayments, type Config } from './config.ts';
import { adminFunctions } from './admin/admin.functions.ts';
import { contentFunctions } from './content/content.functions.ts';
import { contentRoutes } from './content/content.routes.ts';
import type { Db } from './db/client.ts';
import { accountsFunctions } from './accounts/accounts.functions.ts';
import { sessionExpiresAt } from './accounts/accounts.service.ts';
import { createAuth, publicUrl } from './accounts/auth.ts';
import { accountSettingsFunctions } from './accounts/account-settings.functions.ts';
import { authRoutes, callerResolver, sessionResolver } from './accounts/auth.routes.ts';
import { firebaseAuthRoutes } from './accounts/firebase-auth.routes.ts';
import { createOidcProvider } from './oidc/oidc.provider.ts';
import { oidcRoutes } from './oidc/oidc.routes.ts';
import { deleteExpiredOidcModels } from './oidc/oidc.adapter.ts';
import { createCatalogCache } from './catalog/catalog.cache.ts';
import { catalogFunctions } from './catalog/catalog.functions.ts';
import { catalogRoutes } from './catalog/catalog.routes.ts';
import { listActiveProducts } from './catalog/catalog.service.ts';
import { startLiveHub } from './live/live.hub.ts';
import { liveRoutes } from './live/live.routes.ts';
import { sendStorageError } from './storage/storage.errors.ts';
import { storageRoutes } from './storage/storage.routes.ts';
import { createStorageDeps } from './storage/storage.service.ts';
import { cleanUpUploadSessions } from './storage/storage.sessions.ts';
import { checkoutFunctions } from './cart-checkout/checkout.functions.ts';
import { reconcileCheckouts, sendRefund, type CheckoutDeps } from './cart-checkout/checkout.service.ts';
import { deskRoutes } from './orders/desk.routes.ts';
import { ordersFunctions } from './orders/orders.functions.ts';
import { runRefundRetry, sweepStalledRefunds, type RefundDeps } from './orders/refunds.service.ts';
import { addressFunctions } from './accounts/addresses.service.ts';
import { paymentProviderFor } from './payments/payment-provider.factory.ts';
import { paymentsRoutes } from './payments/payments.routes.ts';
import { serviceRoutes } from './service/service.routes.ts';
import { createStripePayouts } from './payments/stripe.provider.ts';
import { payoutsFunctions } from './payouts/payouts.functions.ts';
import { localPayoutRoutes } from './payouts/payouts.routes.ts';
import { createLocalPayouts, type PayoutDeps } from './payouts/payouts.service.ts';
import { walletFunctions } from './wallet/wallet.functions.ts';
import { functionsRoutes } from './functions/functions.routes.ts';
import type { CallableFunction } from './functions/registry.ts';
import { startJobQueue } from './jobs/queue.ts';
import { enqueueMail, startMailWorker } from './mail/mail.jobs.ts';
import { createMailer, type Mail } from './mail/mailer.ts';
import { errorBody, handleError } from './http/error-handler.ts';
import { registerClientAddress, trustedProxyCheck } from './http/client-address.ts';
import { corsForAllowedOrigins } from './http/cors.ts';
import { refuseCrossSiteWrites } from './http/same-origin.ts';
import { addSecurityHeaders } from './http/security-headers.ts';
import { withTestModeBanner } from './http/test-mode.ts';
import { createLogger, redactUrl, type Logger } from './logger.ts';

declare module 'fastify' {
  interface FastifyInstance {
    callableFunctions: { name: string; access: 'public' | 'signed-in' | 'admin' }[];
    httpRoutes: { method: string; url: string }[];
  }
}

export interface BuildAppOptions {
  config: Config;
  db: Db;
  /** Extra callable functions to serve besides every area's own (tests use this). */
  functions?: CallableFunction[];
  /** The card provider; by default the one PAYMENT_PROVIDER names (tests pass a fake Stripe). */
  payments?: ReturnType<typeof paymentProviderFor>;
  /** Fastify's own logger options (tests pass `false`); by default the shop's logger. */
  logger?: FastifyServerOptions['logger'];
  /** The shop's logger (logger.ts): main.ts passes the one it writes start-up lines with. */
  loggerInstance?: Logger;
}

const IMMUTABLE = 'public, max-age=31536000, immutable';

/** Builds the whole HTTP application. Tests drive it with `app.inject()`; main.ts listens. */
export async function buildApp(options: BuildAppOptions): Promise<FastifyInstance> {
  const { config, db } = options;
  const logger = options.logger === undefined ? (options.loggerInstance ?? createLogger(config)) : undefined;
  const app = Fastify({
    ...(logger ? { loggerInstance: logger as FastifyBaseLogger } : { logger: options.logger }),
    // One line per request, written below with its URL redacted (issue 13).
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: 1024 * 1024,
    // Forwarded headers only from TRUSTED_PROXIES (decision 017).
    trustProxy: trustedProxyCheck(config.TRUSTED_PROXIES),
    return503OnClosing: true,
  });

  app.setErrorHandler(handleError);
  registerClientAddress(app, config.TRUSTED_PROXIES);
  // Every route, for the access-control tests: a route without a table entry fails them.
  const httpRoutes: { method: string; url: string }[] = [];
  app.decorate('httpRoutes', httpRoutes);
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) if (method !== 'HEAD') httpRoutes.push({ method, url: route.url });
  });

  // A kept-alive connection whose request was in flight at close() would hold the server
  // open until the client hangs up: answer it with `Connection: close` instead.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  // Callback-style hooks: an async hook costs a promise per request (decision 015).
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) void reply.header('connection', 'close');
    done(null, payload);
  });

  app.addHook('onResponse', (request, reply, done) => {
    request.log.info({ method: request.method, url: redactUrl(request.url), status: reply.statusCode, ms: Math.round(reply.elapsedTime) }, 'request');
    done();
  });

  addSecurityHeaders(app, config);
  await app.register(compress, { threshold: 1024 });
  // CORS for the sister products' web apps (CORS_ORIGINS), before the cross-site check.
  app.addHook('onRequest', corsForAllowedOrigins(config));
  app.addHook('onRequest', refuseCrossSiteWrites(config));

  app.get('/healthz', async () => ({ ok: true }));
  app.get('/readyz', async (_request, reply) => {
    try {
      await db.execute(sql`SELECT 1`);
      return { ok: true, database: 'reachable' };
    } catch {
      return reply.status(503).send(errorBody('unavailable', 'The database is not reachable.'));
    }
  });

  const jobs = await startJobQueue(db.$client, (error) => app.log.error({ err: error }, 'job queue error'));
  app.addHook('onClose', () => jobs.stop());
  await startMailWorker(jobs, createMailer(config, db));
  const queueMail = (mail: Mail) => enqueueMail(jobs, mail);
  const auth = createAuth(config, db, queueMail, app.log as Logger);

  const resolveSession = sessionResolver(auth, config, db);
  const resolveCaller = callerResolver(resolveSession);
  const hub = await startLiveHub(db.$client.options, (error) => app.log.warn({ err: error }, 'live updates connection lost'));
  app.addHook('onClose', () => hub.stop());
  // The shop's product list and pages, kept until a 'products' NOTIFY says they changed.
  const catalogCache = createCatalogCache(() => listActiveProducts(db), hub);

  const payments = options.payments ?? paymentProviderFor(config, db);
  const checkoutDeps: CheckoutDeps = { db, jobs, provider: payments.provider, publicUrl: publicUrl(config) };
  await jobs.work('reconcile-checkouts', async () => {
    await reconcileCheckouts(checkoutDeps);
  });
  await jobs.schedule('reconcile-checkouts', '* * * * *');
  // Late payments whose stock was gone (issue 15): refunded through the provider, once.
  await jobs.work<{ checkoutId: string }>('refund-payment', async ({ checkoutId }) => {
    await sendRefund(checkoutDeps, checkoutId);
  });
  // Card refunds that got no answer: retried with backoff, once across processes (decision 034).
  const refundDeps: RefundDeps = { ...checkoutDeps, refundRetry: { attempts: config.REFUND_RETRY_ATTEMPTS, baseMs: config.REFUND_RETRY_BASE_MS } };
  await jobs.work<{ refundId: string }>('refund-retry', (job) => runRefundRetry(refundDeps, job));
  await jobs.work('refund-sweep', async () => {
    await sweepStalledRefunds(refundDeps);
  });
  await jobs.schedule('refund-sweep', '* * * * *');

  const payoutDeps: PayoutDeps =
    config.PAYMENT_PROVIDER === 'stripe'
      ? { db, providerName: 'stripe', provider: createStripePayouts({ secretKey: config.STRIPE_SECRET_KEY!, webhookSecret: config.STRIPE_WEBHOOK_SECRET!, publicUrl: publicUrl(config) }) }
      : { db, providerName: 'local', provider: createLocalPayouts(db) };
  if (payoutDeps.providerName === 'local') await app.register(localPayoutRoutes, { db, resolveCaller });

  await app.register(authRoutes, { auth, config, db });
  // The Firebase Auth endpoints `firebase/auth` calls for signInWithCustomToken (decision 035).
  await app.register(firebaseAuthRoutes, { resolveSession, db });
  // Single sign-on for the sister products (decision 014).
  const shopUserId = async (headers: IncomingHttpHeaders) => (await resolveCaller({ headers }))?.userId ?? null;
  const oidcProvider = await createOidcProvider({ db, publicUrl: publicUrl(config), authSecret: config.AUTH_SECRET, behindProxy: config.isProduction, shopUserId });
  await app.register(oidcRoutes, { provider: oidcProvider, shopUserId });
  await jobs.work('oidc-cleanup', async () => {
    await deleteExpiredOidcModels(db);
  });
  await jobs.schedule('oidc-cleanup', '17 * * * *');
  const functions = [
    ...contentFunctions,
    ...accountsFunctions(auth, queueMail),
    ...accountSettingsFunctions(queueMail),
    ...catalogFunctions({ onChange: catalogCache.invalidate }),
    ...checkoutFunctions(checkoutDeps),
    ...ordersFunctions(refundDeps),
    ...walletFunctions,
    ...addressFunctions,
    ...adminFunctions,
    ...payoutsFunctions(payoutDeps),
    ...(options.functions ?? []),
  ];
  // Lets the access-control tests enumerate every function and its declared access.
  app.decorate('callableFunctions', functions.map(({ name, access }) => ({ name, access })));
  await app.register(functionsRoutes, { db, config, functions, resolveCaller });
  await app.register(serviceRoutes, { db });
  await app.register(paymentsRoutes, { deps: checkoutDeps, local: payments.local, resolveCaller });
  await app.register(deskRoutes, { db, resolveCaller });
  await app.register(contentRoutes, { db, config });
  await app.register(catalogRoutes, { db, cache: catalogCache, resolveCaller });
  await app.register(liveRoutes, { hub, resolveSession, sessionExpiresAt: (sessionId) => sessionExpiresAt(db, sessionId) });
  // Objects on the local disk or in S3 (decision 022); abandoned upload sessions expire.
  const storage = createStorageDeps({ db, config, log: app.log });
  await app.register(storageRoutes, { config, db, resolveCaller, driver: storage.driver });
  await jobs.work('storage-cleanup', async () => {
    await cleanUpUploadSessions(storage);
  });
  await jobs.schedule('storage-cleanup', '*/10 * * * *');

  await app.register(fastifyStatic, {
    root: path.join(config.contentDir, 'covers'),
    prefix: '/content/covers/',
    decorateReply: false,
    maxAge: '7d',
  });
  await registerWebApp(app, config);
  return app;
}

/** Serves the built SPA: hashed assets cached for a year, index.html for client routes. */
async function registerWebApp(app: FastifyInstance, config: Config) {
  const indexPath = path.join(config.webDistDir, 'index.html');
  const hasBuild = fs.existsSync(indexPath);
  // Read once: this process serves the build it started with, even after a new build is
  // installed beside it (old assets stay, decision 021). Fake payments: the TEST MODE banner.
  const indexHtml = hasBuild ? fs.readFileSync(indexPath, 'utf8') : '';
  const page = takesTestPayments(config) ? withTestModeBanner(indexHtml) : indexHtml;
  if (hasBuild) {
    await app.register(fastifyStatic, {
      root: config.webDistDir,
      prefix: '/',
      wildcard: false,
      index: false,
      // /index.html too is the page below (with the banner when payments are fake).
      allowedPath: (pathName) => pathName !== '/index.html',
      cacheControl: false,
      preCompressed: false,
      setHeaders(res, filePath) {
        const hashed = filePath.includes(`${path.sep}assets${path.sep}`);
        res.setHeader('cache-control', hashed ? IMMUTABLE : 'public, max-age=300');
      },
    });
  }

  app.setNotFoundHandler(async (request, reply) => {
    const url = request.url;
    const isStorage = url.startsWith('/v0/') || url === '/v0' || url.startsWith('/img/');
    const isApi = isStorage || url.startsWith('/fn/') || url.startsWith('/api/') || url === '/fn' || url === '/api';
    const pathOnly = url.split('?')[0] ?? '';
    const wantsPage = request.method === 'GET' && !isApi && (!path.extname(pathOnly) || pathOnly === '/index.html');
    if (wantsPage && hasBuild) {
      return reply
        .header('cache-control', 'no-cache')
        .type('text/html; charset=utf-8')
        .send(page);
    }
    if (wantsPage) {
      return reply
        .status(503)
        .type('text/plain; charset=utf-8')
        .send('The web app has not been built yet: run `npm run build` (npm start does it for you).');
    }
    const message = `Nothing at ${request.method} ${url.split('?')[0]}.`;
    // The storage service answers in its own error shape, which the storage SDKs read.
    if (isStorage) return sendStorageError(reply, 'unknown', 404, message);
    return reply.status(404).send(errorBody('not-found', message));
  });
}
