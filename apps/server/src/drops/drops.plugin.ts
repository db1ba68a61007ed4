import { publicUrl } from '../accounts/auth.ts';
import { defineArea } from '../http/area.ts';
import { advanceDrop, forgetUsedChallenges } from './drop-queue.service.ts';
import { dropFunctions } from './drops.functions.ts';
import { addDropPages } from './drops.pages.ts';
import { dropsToAdvance } from './drops.service.ts';
import { offerReturnedUnits } from './waitlist.service.ts';

/**
 * Fair drops (issue 35, decision 066). Every instance runs the admission rounds on a short
 * timer (DROP_ADVANCE_MS): a round takes the drop's advisory lock or skips, so any instance
 * admits and none is a leader. Waitlist offers and the used challenges' cleanup run once a
 * minute across all processes.
 */
export const dropsArea = defineArea('drops', async (app, { db, jobs, config, every, pages }) => {
  // The drop's pages, written by the server for link previews (decision 069).
  addDropPages(pages, db);
  const secrets = [config.AUTH_SECRET, ...config.AUTH_SECRET_PREVIOUS];
  let running = false;
  const tick = async () => {
    if (running) return;
    running = true;
    try {
      for (const dropId of await dropsToAdvance(db)) await advanceDrop({ db, secrets }, dropId);
    } catch (error) {
      app.log.warn({ err: error }, 'drop admission round failed');
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void tick(), config.DROP_ADVANCE_MS);
  timer.unref();
  app.addHook('onClose', async () => clearInterval(timer));
  const offerDeps = { db, jobs, publicUrl: publicUrl(config), secret: config.AUTH_SECRET };
  await every('drop-waitlist-offers', '* * * * *', () => offerReturnedUnits(offerDeps));
  await every('drop-challenges-cleanup', '23 * * * *', () => forgetUsedChallenges(db));
  return { functions: dropFunctions() };
});
