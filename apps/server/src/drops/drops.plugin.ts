import { type Config, publicUrl } from '../config.ts';
import type { Db } from '../db/client.ts';
import { defineArea } from '../http/area.ts';
import type { JobQueue } from '../jobs/queue.ts';
import { advanceDrop, forgetUsedChallenges } from './drop-queue.service.ts';
import { dropFunctions } from './drops.functions.ts';
import { dropsToAdvance } from './drops.service.ts';
import { offerReturnedUnits } from './waitlist.service.ts';

/** How often each instance offers returned units to the waitlists and forgets used challenges. */
const OFFER_MS = 15_000;

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
}

/**
 * Fair drops (issue 35, decision 066). Every instance runs the admission rounds on a short
 * timer (DROP_ADVANCE_MS): a round takes the drop's advisory lock or skips, so any instance
 * admits and none is a leader. Waitlist offers run the same way (one instance per round,
 * under their own advisory lock) every OFFER_MS.
 */
export const dropsArea = defineArea('drops', async (app, { db, jobs, config }: DropsOptions) => {
  const secrets = [config.AUTH_SECRET, ...config.AUTH_SECRET_PREVIOUS];
  const offerDeps = { db, jobs, publicUrl: publicUrl(config), secret: config.AUTH_SECRET };
  const warn = (what: string) => (error: unknown) => app.log.warn({ err: error }, what);
  const stops = [
    repeat(
      config.DROP_ADVANCE_MS,
      async () => {
        for (const dropId of await dropsToAdvance(db)) await advanceDrop({ db, secrets }, dropId);
      },
      warn('drop admission round failed'),
    ),
    repeat(
      OFFER_MS,
      async () => {
        await offerReturnedUnits(offerDeps);
        await forgetUsedChallenges(db);
      },
      warn('waitlist offers failed'),
    ),
  ];
  app.addHook('onClose', async () => {
    for (const stop of stops) stop();
  });
  return { functions: dropFunctions() };
});
