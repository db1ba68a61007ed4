import { type Config, publicUrl } from '../config.ts';
import type { Db } from '../db/client.ts';
import { defineArea } from '../http/area.ts';
import { onDemand } from '../jobs/on-demand.ts';
import type { JobQueue } from '../jobs/queue.ts';
import type { LiveHub } from '../live/live.hub.ts';
import type { QueueMail } from '../mail/mail.jobs.ts';
import type { PublicPages } from '../web/public-pages.ts';
import { advanceDrop, forgetUsedChallenges } from './drop-queue.service.ts';
import { dropFunctions, type OnDropScheduled } from './drops.functions.ts';
import { addDropPages } from './drops.pages.ts';
import { dropsToAdvance } from './drops.service.ts';
import { notifyMeFunctions } from './notify-me.functions.ts';
import { offerReturnedUnits } from './waitlist.service.ts';

/** Runs `task` every `ms` on this instance, one run at a time; a failure is logged and the next run tries again. */
function repeat(ms: number, task: () => Promise<unknown>, onError: (error: unknown) => void): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    task()
      .catch(onError)
      .finally(() => (running = false));
  }, ms);
  timer.unref();
  return () => clearInterval(timer);
}

/** What app.ts hands the drops area. */
export interface DropsOptions {
  config: Config;
  db: Db;
  jobs: JobQueue;
  /** Stock changes heard live start a waitlist round (decision 076). */
  hub: LiveHub;
  queueMail: QueueMail;
  /** The drop pages' heads and sitemap.xml's addresses (decision 069). */
  pages: PublicPages;
  /** A drop scheduled may send an automatic announcement (the fans area's, decision 079). */
  onDropScheduled?: OnDropScheduled;
}

/**
 * Fair drops (issue 35, decision 066). Every instance runs the admission rounds on a short
 * timer (DROP_ADVANCE_MS): a round takes the drop's advisory lock or skips, so any instance
 * admits and none is a leader. Waitlist offers run the same way (one instance per round,
 * under their own advisory lock) every NOTIFY_ROUND_MS, and at once when a stock change that
 * leaves units is heard (a restock, an expired hold, on any instance: decision 076).
 */
export const dropsArea = defineArea('drops', async (app, { db, jobs, config, pages, hub, queueMail, onDropScheduled }: DropsOptions) => {
  // The drop's pages, written by the server for link previews (decision 069).
  addDropPages(pages, db);
  const secrets = [config.AUTH_SECRET, ...config.AUTH_SECRET_PREVIOUS];
  const offerDeps = { db, jobs, publicUrl: publicUrl(config), secret: config.AUTH_SECRET };
  const warn = (what: string) => (error: unknown) => app.log.warn({ err: error }, what);
  const offers = onDemand(() => offerReturnedUnits(offerDeps), warn('waitlist offers failed'));
  const stops = [
    repeat(
      config.DROP_ADVANCE_MS,
      async () => {
        for (const dropId of await dropsToAdvance(db)) await advanceDrop({ db, secrets }, dropId);
      },
      warn('drop admission round failed'),
    ),
    repeat(
      config.NOTIFY_ROUND_MS,
      async () => {
        await offerReturnedUnits(offerDeps);
        await forgetUsedChallenges(db);
      },
      warn('waitlist offers failed'),
    ),
    offers.stop,
    hub.subscribe((event) => {
      if (event.topic === 'products' && event.stock && Object.values(event.stock).some((units) => units !== 0)) offers.ask();
    }),
  ];
  app.addHook('onClose', async () => {
    for (const stop of stops) stop();
  });
  return { functions: [...dropFunctions(onDropScheduled), ...notifyMeFunctions({ queueMail })] };
});
