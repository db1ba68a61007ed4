import { sessionExpiresAt } from '../accounts/accounts.service.ts';
import { defineArea } from '../http/area.ts';
import { liveRoutes } from './live.routes.ts';
import type { Db } from '../db/client.ts';
import type { LiveHub } from './live.hub.ts';
import type { PublicPages } from '../web/public-pages.ts';
import type { SessionResolver } from '../accounts/auth.routes.ts';

/** What app.ts hands the live area. */
export interface LiveOptions {
  db: Db;
  hub: LiveHub;
  pages: PublicPages;
  resolveSession: SessionResolver;
}

/** Server-sent events: a signed-in page hears what changed. */
export const liveArea = defineArea('live', async (app, { db, hub, resolveSession, pages }: LiveOptions) => {
  await app.register(liveRoutes, { hub, resolveSession, sessionExpiresAt: (sessionId) => sessionExpiresAt(db, sessionId), position: (read) => pages.readLivePosition(read) });
});
