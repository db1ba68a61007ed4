import { sessionExpiresAt } from '../accounts/accounts.service.ts';
import { defineArea } from '../http/area.ts';
import { liveRoutes } from './live.routes.ts';

/** Server-sent events: a signed-in page hears what changed. */
export const liveArea = defineArea('live', async (app, { db, hub, resolveSession, pages }) => {
  await app.register(liveRoutes, { hub, resolveSession, sessionExpiresAt: (sessionId) => sessionExpiresAt(db, sessionId), position: (read) => pages.readLivePosition(read) });
});
