import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import compress from '@fastify/compress';
import { sql } from 'drizzle-orm';
import { type Config, publicUrl } from './config.ts';
import type { Db } from './db/client.ts';
import { accountsArea } from './accounts/accounts.plugin.ts';
import { createAuth, PASSWORD_RESET_QUEUE } from './accounts/auth.ts';
import { callerResolver, sessionResolver } from './accounts/auth.routes.ts';
import { contactOf } from './accounts/accounts.service.ts';
import { adminArea } from './admin/admin.plugin.ts';
import { checkoutArea } from './checkout/checkout.plugin.ts';
import { applyPaymentEvent } from './checkout/payment.flow.ts';
import { applyRefundEvent } from './orders/refund-events.service.ts';
import { catalogArea } from './catalog/catalog.plugin.ts';
import { contentArea } from './content/content.plugin.ts';
import { digitalArea } from './digital/digital.plugin.ts';
import { discountsArea } from './discounts/discounts.plugin.ts';
import { dropsArea } from './drops/drops.plugin.ts';
import { createDropPacing, DROP_PACING } from './drops/drop-pacing.ts';
import { dropPlaces } from './drops/drop-queue.service.ts';
import { rosterArea } from './roster/roster.plugin.ts';
import { fansArea } from './fans/fans.plugin.ts';
import { royaltiesArea } from './royalties/royalties.plugin.ts';
import { moveArtistParty } from './royalties/rules.service.ts';
import { moveFollows } from './fans/follows.service.ts';
import { artistsOfProducts, artistsOfRelease, productIdsOfArtist } from './roster/roster.service.ts';
import { getProduct } from './catalog/catalog.service.ts';
import { findRelease } from './digital/releases.service.ts';
import { findDrop } from './drops/drops.service.ts';
import type { LinkKind } from './fans/announcements.functions.ts';
import { announceAutomatically } from './fans/announcement-automation.ts';
import { preordersArea } from './preorders/preorders.plugin.ts';
import { giftCardsArea } from './giftcards/giftcards.plugin.ts';
import { liveArea } from './live/live.plugin.ts';
import { startLiveHub } from './live/live.hub.ts';
import { oidcArea } from './oidc/oidc.plugin.ts';
import { openapiArea } from './openapi/openapi.plugin.ts';
import { ordersArea } from './orders/orders.plugin.ts';
import { paymentProviderFor } from './payments/payment-provider.factory.ts';
import { paymentsArea } from './payments/payments.plugin.ts';
import type { PaymentEventHandlers } from './payments/provider.ts';
import { payoutDepsFor, payoutsArea } from './payouts/payouts.plugin.ts';
import { onboardingLinkFor, payoutAccountOf } from './payouts/payouts.service.ts';
import { serviceArea } from './service/service.plugin.ts';
import { shippingArea } from './shipping/shipping.plugin.ts';
import { createStripeTax, type TaxCalculator } from './shipping/stripe-tax.ts';
import { withCalculationCache } from './shipping/tax-cache.service.ts';
import { storageArea } from './storage/storage.plugin.ts';
import { walletArea } from './wallet/wallet.plugin.ts';
import { createPublicPages } from './web/public-pages.ts';
import { registerWebApp } from './web/web-app.ts';
import { functionsRoutes } from './functions/functions.routes.ts';
import type { CallableFunction } from './functions/registry.ts';
import { everyOn, startJobQueue } from './jobs/queue.ts';
import { endSingleSignOn } from './oidc/logout.service.ts';
import { enqueueMail, startMailWorker } from './mail/mail.jobs.ts';
import { createMailer, type Mail } from './mail/mailer.ts';
import { errorBody, handleError } from './http/error-handler.ts';
import { oncePerOutage, onDatabaseOutage, withoutConnectRetry } from './db/availability.ts';
import { registerClientAddress, trustedProxyCheck } from './http/client-address.ts';
import { corsForAllowedOrigins } from './http/cors.ts';
import { refuseCrossSiteWrites } from './http/same-origin.ts';
import { addSecurityHeaders } from './http/security-headers.ts';
import { createLogger, redactUrl, requestLoggerFactory, runInRequestScope, type Logger } from './logger.ts';
import { registerRequestId, requestIdGenerator } from './http/request-id.ts';
import { createMetrics, metricsRoute, type ShopMetrics } from './metrics/metrics.ts';
import type { ShopFigureQueries } from './metrics/metrics.service.ts';

declare module 'fastify' {
  interface FastifyInstance {
    callableFunctions: { name: string; access: 'public' | 'signed-in' | 'admin' }[];
    /** Prometheus metrics of this app (decision 040); server.ts also serves them on METRICS_PORT. */
    metrics: ShopMetrics;
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
  /** Stripe Tax (tests pass one pointed at a fake Stripe); by default made from STRIPE_SECRET_KEY, or none. */
  tax?: TaxCalculator | null;
  /** Fastify's own logger options (tests pass `false`); by default the shop's logger. */
  logger?: FastifyServerOptions['logger'];
  /** The shop's logger (logger.ts): main.ts passes the one it writes start-up lines with. */
  loggerInstance?: Logger;
  /** Replaces queries of the shop-wide metrics (tests). */
  metricsQueries?: Partial<ShopFigureQueries>;
}

/**
 * The shop's areas, each a folder with an `<area>.plugin.ts` registering its routes, jobs
 * and callable functions (issue 14 item 7, decision 036), in the order they are registered.
 * Each declares the options it needs; buildApp hands them over (decision 065).
 */
export const AREAS = [
  contentArea,
  accountsArea,
  oidcArea,
  catalogArea,
  checkoutArea,
  shippingArea,
  discountsArea,
  giftCardsArea,
  ordersArea,
  preordersArea,
  walletArea,
  adminArea,
  payoutsArea,
  paymentsArea,
  serviceArea,
  liveArea,
  storageArea,
  digitalArea,
  dropsArea,
  rosterArea,
  fansArea,
  royaltiesArea,
  openapiArea,
] as const;

type AnArea = (typeof AREAS)[number];
/** Each area's options, by its name: a missing or mistyped option fails the typecheck. */
type AreaOptions = { [A in AnArea as A['name']]: Parameters<A['register']>[1] };

/** Builds the whole HTTP application. Tests drive it with `app.inject()`; main.ts listens. */
export async function buildApp(options: BuildAppOptions): Promise<FastifyInstance> {
  const { config, db } = options;
  const logger = options.logger === undefined ? (options.loggerInstance ?? createLogger(config)) : undefined;
  const app = Fastify({
    ...(logger ? { loggerInstance: logger as FastifyBaseLogger } : { logger: options.logger }),
    // One line per request, written below with its URL redacted (issue 13); every line of a
    // request names its id (decision 040).
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'requestId' }),
    // request.log becomes pino's child only when the request writes a line (issue 38).
    ...(logger ? { childLoggerFactory: requestLoggerFactory as unknown as FastifyServerOptions['childLoggerFactory'] } : {}),
    bodyLimit: 1024 * 1024,
    // Forwarded headers only from TRUSTED_PROXIES (decision 017).
    trustProxy: trustedProxyCheck(config.TRUSTED_PROXIES),
    // X-Request-Id from a trusted proxy, or a random UUID (decision 040).
    genReqId: requestIdGenerator(config.TRUSTED_PROXIES),
    return503OnClosing: true,
  });

  app.setErrorHandler(handleError);
  registerRequestId(app);
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

  // The live hub starts below; until then nothing is heard.
  let hubIsListening = () => false;
  const metrics = createMetrics({
    pool: db.$client,
    liveListening: () => hubIsListening(),
    ...(options.metricsQueries ? { queries: options.metricsQueries } : {}),
    onCollectError: (figure, error) => app.log.warn({ err: error, figure }, 'a metric could not be read'),
  });
  app.decorate('metrics', metrics);
  metrics.register(app);

  app.addHook('onResponse', (request, reply, done) => {
    // Nothing is made for a line the level leaves out (LOG_LEVEL=warn), not even the redacted URL (issue 38).
    // The root logger with the id as a field: the same line, without a child logger per request.
    if ((app.log as Partial<Logger>).isLevelEnabled?.('info') !== false) {
      app.log.info({ requestId: request.id, method: request.method, url: redactUrl(request.url), status: reply.statusCode, ms: Math.round(reply.elapsedTime) }, 'request');
    }
    done();
  });

  addSecurityHeaders(app, config);
  await app.register(compress, { threshold: 1024 });
  // CORS for the sister products' web apps (CORS_ORIGINS), before the cross-site check.
  // Every line logged while a request is handled carries its id, the root logger's too.
  app.addHook('onRequest', (request, _reply, done) => runInRequestScope(request.id, done));
  app.addHook('onRequest', corsForAllowedOrigins(config));
  app.addHook('onRequest', refuseCrossSiteWrites(config));

  // One line per database outage (issue 40 item 18), whatever number of requests it touched.
  const stopOutageLog = onDatabaseOutage(
    oncePerOutage((error) => app.log.error({ err: error }, 'database unavailable: new connections wait up to 2.5 s, then requests are answered 503 with Retry-After')),
  );
  app.addHook('onClose', async () => stopOutageLog());
  app.get('/healthz', async () => ({ ok: true }));
  app.get('/metrics', metricsRoute(config, metrics));
  app.get('/readyz', async (_request, reply) => {
    try {
      // Said at once, not after the pool's wait for a restarting database.
      await withoutConnectRetry(() => db.execute(sql`SELECT 1`));
      return { ok: true, database: 'reachable' };
    } catch {
      return reply.status(503).send(errorBody('unavailable', 'The database is not reachable.'));
    }
  });

  const jobs = await startJobQueue(db.$client, (error) => {
    metrics.jobQueueError();
    app.log.error({ err: error }, 'job queue error');
  });
  app.addHook('onClose', () => jobs.stop());
  const mailer = createMailer(config, db);
  app.addHook('onClose', () => mailer.close());
  await startMailWorker(jobs, mailer, config.MAIL_CONCURRENCY);
  const queueMail = (mail: Mail) => enqueueMail(jobs, mail);
  const endSingleSignOnOf = (userId: string) => endSingleSignOn(db, jobs, userId);
  const auth = createAuth(config, db, queueMail, app.log as Logger, (request) => jobs.send(PASSWORD_RESET_QUEUE, request), endSingleSignOnOf);

  const resolveSession = sessionResolver(auth, config, db);
  const hub = await startLiveHub(db.$client.options, (error) => app.log.warn({ err: error }, 'live updates connection lost'));
  app.addHook('onClose', () => hub.stop());
  hubIsListening = () => hub.isListening();
  const payments = options.payments ?? paymentProviderFor(config, db);
  // Stripe Tax when a Stripe key is set (decision 051); the shipping-and-tax settings choose whether it is used.
  const stripeTax = options.tax !== undefined ? options.tax : config.STRIPE_SECRET_KEY ? createStripeTax({ secretKey: config.STRIPE_SECRET_KEY }) : null;
  // Each calculation kept 10 minutes in PostgreSQL for an unchanged request (issue 40 item 7).
  const tax = stripeTax ? withCalculationCache(db, stripeTax) : null;
  const admissionSecrets = [config.AUTH_SECRET, ...config.AUTH_SECRET_PREVIOUS];
  const checkout = { db, jobs, provider: payments.provider, publicUrl: publicUrl(config), holdMs: config.CHECKOUT_HOLD_MINUTES * 60_000, tax, admissionSecrets };
  const pages = createPublicPages();
  const resolveCaller = callerResolver(resolveSession);
  const every = everyOn(jobs);
  // What a verified provider event means: the checkout's payment flow and the orders' refunds (payments imports neither).
  const paymentEvents: PaymentEventHandlers = { payment: (event) => applyPaymentEvent(checkout, event), refund: (event) => applyRefundEvent(checkout, event) };
  // An announcement's link (decision 079): the release's, product's or drop's title and page, from the areas that own them.
  const resolveLink = async (kind: LinkKind, id: string): Promise<{ title: string; path: string } | undefined> => {
    if (kind === 'product') {
      const product = await getProduct(db, id, { includeInactive: true }).catch(() => undefined);
      return product ? { title: product.name, path: `/product/${encodeURIComponent(product.id)}` } : undefined;
    }
    if (kind === 'release') {
      const releaseId = Number(id);
      const release = Number.isSafeInteger(releaseId) && releaseId > 0 && releaseId < 2 ** 31 ? await findRelease(db, releaseId) : undefined;
      return release ? { title: `${release.title} by ${release.artist}`, path: `/music/${release.id}` } : undefined;
    }
    const drop = await findDrop(db, { dropId: id });
    return drop ? { title: drop.name, path: `/drops/${encodeURIComponent(drop.slug)}` } : undefined;
  };
  // Automatic announcements (decision 079): the events of the catalogue, preorders and drops, written by the fans area if the label turned them on.
  const creditedArtists = async (productId: string) => (await artistsOfProducts(db, [productId])).map((artist) => artist.id);
  const productLink = (id: string, name: string) => ({ kind: 'product' as const, id, title: name, path: `/product/${encodeURIComponent(id)}` });
  const labelDate = (iso: string) => new Intl.DateTimeFormat('en-US', { dateStyle: 'long', timeStyle: 'short', timeZone: config.LABEL_TIME_ZONE }).format(new Date(iso));
  const automatic = {
    onDropScheduled: async (drop: { id: string; name: string; slug: string; startsAt: string }) => {
      const link = { kind: 'drop' as const, id: drop.id, title: drop.name, path: `/drops/${encodeURIComponent(drop.slug)}` };
      const body = `${drop.name} drops on ${labelDate(drop.startsAt)}.\n\nJoin the queue from its page: fans in the queue before the start are shuffled fairly.`;
      await announceAutomatically(db, { kind: 'drop-scheduled', key: `drop-scheduled:${drop.id}`, subject: `New drop: ${drop.name}`, body, link, artistIds: [] });
    },
    onPreorderOpened: async (product: { id: string; name: string; releaseDate: string }) => {
      const body = `${product.name} is open for preorder. It comes out on ${product.releaseDate}.`;
      const artistIds = await creditedArtists(product.id);
      await announceAutomatically(db, {
        kind: 'preorder-open',
        key: `preorder-open:${product.id}`,
        subject: `Preorder now: ${product.name}`,
        body,
        link: productLink(product.id, product.name),
        artistIds,
      });
    },
    onReleased: async (productIds: string[]) => {
      for (const id of productIds) {
        const { name } = await getProduct(db, id, { includeInactive: true });
        const artistIds = await creditedArtists(id);
        await announceAutomatically(db, {
          kind: 'release-live',
          key: `release-live:${id}`,
          subject: `Out now: ${name}`,
          body: `${name} is out today.`,
          link: productLink(id, name),
          artistIds,
        });
      }
    },
  };
  const payoutDeps = payoutDepsFor(config, db);
  const areaOptions: AreaOptions = {
    content: { config, db, pages },
    accounts: { auth, config, db, jobs, queueMail, resolveSession },
    oidc: { auth, config, db, every, jobs, resolveCaller },
    // The shop's artist filter asks the roster which products credit an artist (catalog imports no roster).
    catalog: { config, db, jobs, hub, pages, resolveCaller, productsOfArtist: (slug) => productIdsOfArtist(db, slug), onPreorderOpened: automatic.onPreorderOpened },
    checkout: { checkout, every, jobs, payments, resolveCaller },
    shipping: { db, every },
    discounts: undefined,
    giftcards: { config, db, jobs },
    orders: { config, db, every, jobs, payments, resolveCaller, tax },
    preorders: { config, db, every, jobs, onReleased: automatic.onReleased },
    wallet: undefined,
    admin: undefined,
    payouts: { config, db, resolveCaller },
    payments: { payments, paymentEvents },
    service: { db },
    // A drop's "now serving" reaches fans far back less often (decision 066; live imports no drops).
    live: { db, hub, pages, resolveSession, pace: createDropPacing({ ...DROP_PACING, placesOf: (dropId) => dropPlaces(db, dropId) }).forStream },
    storage: { config, db, every, resolveCaller },
    // A release's page links its roster artists (digital imports no roster).
    digital: { config, db, jobs, pages, artistsOfRelease: (releaseId) => artistsOfRelease(db, releaseId) },
    drops: { config, db, jobs, pages, hub, queueMail, onDropScheduled: automatic.onDropScheduled },
    // A merge moves the fans' follows and the royalties' party of the merged artist (roster imports neither).
    roster: {
      config,
      db,
      pages,
      alsoMove: async (tx, from, into) => {
        await moveFollows(tx, from, into);
        await moveArtistParty(tx, from, into);
      },
    },
    // The account's address for its consent (fans imports no accounts).
    fans: { config, db, jobs, hub, queueMail, resolveCaller, every, emailOf: async (userId) => (await contactOf(db, userId))?.email ?? '', resolveLink },
    // Payout runs pay through the provider the creators' cash-outs use, and a party's portal connects
    // the caller's own payout account (royalties imports no payouts).
    royalties: {
      payouts: payoutDeps.provider,
      queueMail,
      portalPayouts: {
        accountOf: (userId) => payoutAccountOf(db, userId),
        onboard: (userId) => onboardingLinkFor(payoutDeps, userId, '/portal'),
      },
    },
    openapi: { config },
  };

  const functions: CallableFunction[] = [];
  for (const area of AREAS) {
    // The names pair each area with its own options (AreaOptions); TypeScript cannot follow that through the loop.
    const registered = (await area.register(app, areaOptions[area.name] as never)) as { functions?: CallableFunction[] } | void;
    if (registered?.functions) functions.push(...registered.functions);
  }
  functions.push(...(options.functions ?? []));
  // Lets the access-control tests enumerate every function and its declared access.
  app.decorate(
    'callableFunctions',
    functions.map(({ name, access }) => ({ name, access })),
  );
  await app.register(functionsRoutes, { db, config, functions, resolveCaller });

  await registerWebApp(app, config, pages);
  return app;
}
