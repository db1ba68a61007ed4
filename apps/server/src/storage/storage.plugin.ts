import { defineArea } from '../http/area.ts';
import { storageRoutes } from './storage.routes.ts';
import { createStorageDeps } from './storage.service.ts';
import { cleanUpUploadSessions } from './storage.sessions.ts';
import { collectOrphans } from './orphans.service.ts';
import type { Every } from '../jobs/queue.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/client.ts';
import type { CallerResolver } from '../accounts/auth.routes.ts';

/** What app.ts hands the storage area. */
export interface StorageOptions {
  config: Config;
  db: Db;
  every: Every;
  resolveCaller: CallerResolver;
}

/**
 * Objects on the local disk or in S3 (decision 022); abandoned upload sessions expire, and
 * images nothing refers to are deleted after ORPHAN_GRACE_HOURS, once a day (decision 047).
 */
export const storageArea = defineArea('storage', async (app, { config, db, resolveCaller, every }: StorageOptions) => {
  const storage = createStorageDeps({ db, config, log: app.log });
  await app.register(storageRoutes, { config, db, resolveCaller, driver: storage.driver });
  await every('storage-cleanup', '*/10 * * * *', () => cleanUpUploadSessions(storage));
  await every('storage-orphans', '43 4 * * *', () => collectOrphans(storage, { olderThanHours: config.ORPHAN_GRACE_HOURS }));
});
