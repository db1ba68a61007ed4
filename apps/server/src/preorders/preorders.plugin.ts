import { type Config, publicUrl } from '../config.ts';
import { defineArea } from '../http/area.ts';
import { releaseDuePreorders } from './preorders.flow.ts';
import type { Every, JobQueue } from '../jobs/queue.ts';
import type { Db } from '../db/client.ts';

/** What app.ts hands the preorders area. */
export interface PreordersOptions {
  config: Config;
  db: Db;
  every: Every;
  jobs: JobQueue;
  /** Products whose street date came (the release job, after its commit) may send an automatic announcement (the fans area's, decision 079). */
  onReleased?: (productIds: string[]) => Promise<void>;
}

/** Preorders (issue 27, decision 054): the release job, once a minute across all processes. */
export const preordersArea = defineArea('preorders', async (app, { db, jobs, config, every, onReleased }: PreordersOptions) => {
  const deps = { db, jobs, publicUrl: publicUrl(config), timeZone: config.LABEL_TIME_ZONE };
  await every('preorder-release', '* * * * *', async () => {
    const { released } = await releaseDuePreorders(deps);
    // Released whatever becomes of the announcement: a failure is logged, not retried (the job would find nothing due).
    if (released.length > 0 && onReleased) await onReleased(released).catch((error: unknown) => app.log.warn({ err: error }, 'automatic announcement of a release failed'));
  });
});
