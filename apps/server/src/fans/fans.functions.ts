import { defineFunction, type CallableFunction } from '../functions/registry.ts';
import { hitRateLimit } from '../http/rate-limit.ts';
import { artistsOfProducts } from '../roster/roster.service.ts';
import { listFollows, setFollow } from './follows.service.ts';

/** The fans' functions (issue 37, decision 074): follows of the label and of roster artists. */
export function fanFunctions(): CallableFunction[] {
  return [
    defineFunction('listFollows', async (_input, { db, caller }) => listFollows(db, caller.userId)),
    defineFunction('setFollow', async ({ target, followed }, { db, caller }) => {
      await hitRateLimit(db, `follow:${caller.userId}`, 120, 600);
      await setFollow(db, caller.userId, target, followed);
      return listFollows(db, caller.userId);
    }),
    defineFunction('listProductArtists', async ({ productId }, { db }) => ({
      artists: (await artistsOfProducts(db, [productId])).map(({ id, name, slug }) => ({ id, name, slug })),
    })),
  ];
}
