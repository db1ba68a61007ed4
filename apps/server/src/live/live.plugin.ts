import { sessionExpiresAt } from '../accounts/accounts.service.ts';
import { defineArea } from '../http/area.ts';
import { liveRoutes } from './live.routes.ts';
import type { Db } from '../db/client.ts';
import type { LiveHub } from './live.hub.ts';
import type { LiveEvent } from './live.publish.ts';
import type { PublicPages } from '../web/public-pages.ts';
import type { SessionResolver } from '../accounts/auth.routes.ts';

/** What app.ts hands the live area. */
export interface LiveOptions {
  db: Db;
  hub: LiveHub;
  pages: PublicPages;
  resolveSession: SessionResolver;
  /** Which events each stream may receive later or not at all (the drops' pacing): none when absent. */
  pace?: (userId: string | null) => ((event: LiveEvent) => boolean) | undefined;
}

/** Server-sent events: a signed-in page hears what changed. */
export const liveArea = defineArea('live', async (app, { db, hub, resolveSession, pages, pace }: LiveOptions) => {
  await app.register(liveRoutes, {
    hub,
    resolveSession,
    sessionExpiresAt: (sessionId) => sessionExpiresAt(db, sessionId),
    position: (read) => pages.readLivePosition(read),
    ...(pace ? { pace } : {}),
  });
});
