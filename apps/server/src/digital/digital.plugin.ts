import { defineArea } from '../http/area.ts';
import { type Config, shopOrigin } from '../config.ts';
import { createStorageDeps } from '../storage/storage.service.ts';
import { FILE_CLEANUP_QUEUE, runFileCleanup, type FileCleanupJob } from './cleanup.service.ts';
import { digitalFunctions } from './digital.functions.ts';
import { addReleasePages } from './digital.pages.ts';
import { digitalRoutes } from './digital.routes.ts';
import { runEncodeJob, type EncodeJob } from './encode.service.ts';
import { ENCODE_QUEUE, type ArtistsOfRelease } from './releases.service.ts';
import type { JobQueue } from '../jobs/queue.ts';
import type { Db } from '../db/client.ts';
import type { PublicPages } from '../web/public-pages.ts';

/** What app.ts hands the digital area. */
export interface DigitalOptions {
  config: Config;
  db: Db;
  jobs: JobQueue;
  pages: PublicPages;
  /** The roster artists a release credits (decision 070): its page links them. */
  artistsOfRelease: ArtistsOfRelease;
}

/**
 * Digital releases (issue 28, decisions 056-057): the console's releases, tracks, masters and
 * download codes; the encoding job; previews, the fan's library and signed downloads.
 */
export const digitalArea = defineArea('digital', async (app, { config, db, jobs, pages, artistsOfRelease }: DigitalOptions) => {
  const storage = createStorageDeps({ db, config, log: app.log });
  await app.register(digitalRoutes, { config, db, driver: storage.driver });
  // The release pages, written by the server for crawlers and link previews (decision 062).
  addReleasePages(pages, db, shopOrigin(config), artistsOfRelease);
  // A job may run for every format of a long track; past this it is taken to have died and runs again.
  await jobs.updateQueue(ENCODE_QUEUE, { expireInSeconds: Math.max(900, config.ENCODE_TIMEOUT_SECONDS * 7) });
  await jobs.work<EncodeJob>(ENCODE_QUEUE, async (job) => {
    await runEncodeJob({ storage, jobs, timeoutMs: config.ENCODE_TIMEOUT_SECONDS * 1000 }, job);
  });
  await jobs.work<FileCleanupJob>(FILE_CLEANUP_QUEUE, async (job) => {
    await runFileCleanup(storage, job);
  });
  return { functions: digitalFunctions({ jobs, config, artistsOfRelease }) };
});
