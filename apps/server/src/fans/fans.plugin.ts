import type { FastifyRequest } from 'fastify';
import { type Config, publicUrl } from '../config.ts';
import type { Db } from '../db/client.ts';
import { defineArea } from '../http/area.ts';
import { onDemand } from '../jobs/on-demand.ts';
import type { Every, JobQueue } from '../jobs/queue.ts';
import type { LiveHub } from '../live/live.hub.ts';
import { createBulkMailer } from '../mail/bulk-mailer.ts';
import { startAnnouncementSender } from './announcement-sender.ts';
import { announcementFunctions, type AnnouncementDeps } from './announcements.functions.ts';
import type { Caller } from '../functions/registry.ts';
import { audienceFunctions } from './audience.functions.ts';
import { audienceRoutes } from './audience.routes.ts';
import { consentFunctions, type ConsentDeps } from './consent.functions.ts';
import { consentRoutes } from './consent.routes.ts';
import { reminderFunctions } from './reminders.functions.ts';
import { HOUR_MS, remindUnpaidCheckouts } from './reminders.service.ts';
import { fanFunctions } from './fans.functions.ts';
import { tellWishlists } from './wishlist.service.ts';

/** What app.ts hands the fans area. */
export interface FansOptions extends ConsentDeps {
  config: Config;
  db: Db;
  jobs: JobQueue;
  /** A product change heard live starts a wishlist round (decision 076). */
  hub: LiveHub;
  /** An announcement's link: a release's, product's or drop's title and page (decision 079). */
  resolveLink: AnnouncementDeps['resolveLink'];
  /** The caller of the Audience tab's export and import routes (decision 078). */
  resolveCaller: (request: FastifyRequest) => Promise<Caller | null>;
  /** The cart reminder's round, every minute on the job queue (decision 078). */
  every: Every;
}

/**
 * The fans (issue 37, decisions 074 and 076): follows of the label and of roster artists, made from the
 * release, product and artist pages, /account and a purchase with its box ticked; marketing
 * consent, kept apart from orders, with its signed-out confirm and leave pages; and the
 * wishlist, whose items back in stock or open for preorder are told to consenting fans once
 * (every NOTIFY_ROUND_MS on each instance, one at a time, and at once on a product change).
 */
export const fansArea = defineArea('fans', async (app, { config, db, jobs, hub, queueMail, emailOf, resolveLink, resolveCaller, every }: FansOptions) => {
  await app.register(consentRoutes, { db, config });
  await app.register(audienceRoutes, { db, resolveCaller });
  // The browser tests' short hour (CART_REMINDER_HOUR_MS) is a test switch: production keeps an hour whatever it says.
  const reminderHourMs = config.NODE_ENV === 'production' ? HOUR_MS : config.CART_REMINDER_HOUR_MS;
  const deps = { db, jobs, publicUrl: publicUrl(config), secret: config.AUTH_SECRET, hourMs: reminderHourMs };
  const rounds = onDemand(
    () => tellWishlists(deps),
    (error) => app.log.warn({ err: error }, 'wishlist round failed'),
  );
  // One reminder of a checkout left unpaid, when the label turned it on (decision 078).
  await every('checkout-reminders', '* * * * *', async () => {
    await remindUnpaidCheckouts(deps);
  });
  // The browser tests' short hours (CART_REMINDER_HOUR_MS): a round that often too (one at a time across instances: its lock).
  const reminders =
    reminderHourMs < HOUR_MS
      ? onDemand(
          () => remindUnpaidCheckouts(deps),
          (error) => app.log.warn({ err: error }, 'cart reminder round failed'),
        )
      : undefined;
  const reminderTimer = reminders ? setInterval(reminders.ask, reminderHourMs) : undefined;
  reminderTimer?.unref();
  const timer = setInterval(rounds.ask, config.NOTIFY_ROUND_MS);
  timer.unref();
  const unsubscribe = hub.subscribe((event) => {
    if (event.topic === 'products') rounds.ask();
  });
  // Announcements (decision 079): this instance's sender, with an SMTP pool of its own.
  const sender = startAnnouncementSender({
    db,
    connection: db.$client.options,
    mailer: createBulkMailer(config, db),
    origin: publicUrl(config),
    secret: config.AUTH_SECRET,
    batch: config.MAIL_CONCURRENCY,
    roundMs: config.ANNOUNCE_ROUND_MS,
    onError: (error) => app.log.warn({ err: error }, 'announcement sending round failed'),
  });
  app.addHook('onClose', async () => {
    await sender.stop();
    clearInterval(timer);
    clearInterval(reminderTimer);
    rounds.stop();
    reminders?.stop();
    unsubscribe();
  });
  return {
    functions: [
      ...fanFunctions(),
      ...consentFunctions({ queueMail, emailOf }),
      ...announcementFunctions({ queueMail, emailOf, resolveLink, wake: sender.wake }),
      ...audienceFunctions(),
      ...reminderFunctions(),
    ],
  };
});
