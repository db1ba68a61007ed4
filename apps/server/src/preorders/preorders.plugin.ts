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
}

/** Preorders (issue 27, decision 054): the release job, once a minute across all processes. */
export const preordersArea = defineArea('preorders', async (_app, { db, jobs, config, every }: PreordersOptions) => {
  const deps = { db, jobs, publicUrl: publicUrl(config), timeZone: config.LABEL_TIME_ZONE };
  await every('preorder-release', '* * * * *', () => releaseDuePreorders(deps));
});
