import { defineFunction, type CallableFunction } from '../functions/registry.ts';
import { hitRateLimit } from '../http/rate-limit.ts';
import { artistsOfProducts } from '../roster/roster.service.ts';
import { listFollows, setFollow } from './follows.service.ts';
import { listWishlist, setWishlisted } from './wishlist.service.ts';

/** The fans' functions (issue 37, decision 074): follows of the label and of roster artists, and the wishlist (decision 076). */
export function fanFunctions(): CallableFunction[] {
  return [
    defineFunction('listFollows', async (_input, { db, caller }) => listFollows(db, caller.userId)),
    defineFunction('setFollow', async ({ target, followed }, { db, caller }) => {
      await hitRateLimit(db, `follow:${caller.userId}`, 120, 600);
      await setFollow(db, caller.userId, target, followed);
      return listFollows(db, caller.userId);
    }),
    defineFunction('listWishlist', async (_input, { db, caller }) => listWishlist(db, caller.userId)),
    defineFunction('setWishlisted', async ({ productId, wishlisted }, { db, caller }) => {
      await hitRateLimit(db, `wishlist:${caller.userId}`, 120, 600);
      await setWishlisted(db, caller.userId, productId, wishlisted);
      return listWishlist(db, caller.userId);
    }),
    defineFunction('listProductArtists', async ({ productId }, { db }) => ({
      artists: (await artistsOfProducts(db, [productId])).map(({ id, name, slug }) => ({ id, name, slug })),
    })),
  ];
}
