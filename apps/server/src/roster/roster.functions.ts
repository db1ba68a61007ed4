import { ownImageUrl } from '@storefront/domain/catalog-schemas.ts';
import { ROSTER_MESSAGES } from '@storefront/domain/roster.ts';
import { productNames } from '../catalog/product-cards.service.ts';
import { listReleaseCredits } from '../digital/releases.service.ts';
import { releaseProductLinks } from '../digital/sales.service.ts';
import type { Tx } from '../db/transaction.ts';
import { AppError } from '../errors.ts';
import { defineFunction, type CallableFunction } from '../functions/registry.ts';
import { artistCards, readPublicArtist } from './public-artist.ts';
import { deleteArtist, listArtists, mergeArtist, rosterDetails, saveArtist, setCredit } from './roster.service.ts';

/** The roster's callable functions (issue 36 part 1, decision 070): the public pages' reads and the console's Roster tab. */
export function rosterFunctions(deps: { alsoMove?: (tx: Tx, from: number, into: number) => Promise<void> } = {}): CallableFunction[] {
  return [
    defineFunction('listArtists', async (_input, { db }) => ({ artists: (await artistCards(db)).map(({ updatedAt: _updatedAt, ...card }) => card) })),
    defineFunction('getArtist', async ({ slug }, { db }) => {
      const found = await readPublicArtist(db, slug);
      if (!found) return { artist: null };
      const { updatedAt: _updatedAt, ...artist } = found.artist;
      return { artist };
    }),
    defineFunction('listRoster', async (_input, { db }) => {
      const [artists, details, releases] = await Promise.all([listArtists(db), rosterDetails(db), listReleaseCredits(db)]);
      const titles = new Map(releases.map((release) => [release.id, release.title]));
      const productIds = [...new Set([...details.credits.values()].flatMap((credits) => credits.productIds))];
      const names = await productNames(db, productIds);
      const credited = new Set([...details.credits.values()].flatMap((credits) => credits.releaseIds));
      return {
        artists: artists.map((artist) => {
          const credits = details.credits.get(artist.id) ?? { releaseIds: [], trackIds: [], productIds: [] };
          return {
            id: artist.id,
            name: artist.name,
            slug: artist.slug,
            bio: artist.bio,
            image: artist.image,
            links: artist.links,
            oldSlugs: details.oldSlugs.get(artist.id) ?? [],
            releases: credits.releaseIds.map((id) => ({ id, title: titles.get(id) ?? `Release ${id}` })),
            tracks: credits.trackIds.map((id) => ({ id })),
            products: credits.productIds.map((id) => ({ id, name: names.get(id) ?? id })),
          };
        }),
        unlinked: releases.filter((release) => !credited.has(release.id)),
      };
    }),
    defineFunction('saveArtist', async (input, { db, origin, caller }) => {
      const image = input.image ? ownImageUrl(input.image, origin ?? '') : '';
      if (image === undefined) throw new AppError('invalid-argument', ROSTER_MESSAGES.image);
      return saveArtist(db, input, image, { userId: caller.userId });
    }),
    defineFunction('linkArtist', async ({ artistId, subject, linked }, { db, caller }) => {
      // A release's credit goes to the products that sell or carry it too: the shop's artist filter finds the record.
      const alsoProducts = subject.kind === 'release' ? (await releaseProductLinks(db, { releaseIds: [subject.id] })).map((link) => link.productId) : [];
      await setCredit(db, { artistId, subject, linked, alsoProducts }, { userId: caller.userId });
      return { ok: true as const };
    }),
    defineFunction('mergeArtist', async ({ from, into }, { db, caller }) => {
      await mergeArtist(db, { from, into }, { userId: caller.userId }, deps.alsoMove);
      return { ok: true as const };
    }),
    defineFunction('deleteArtist', async ({ id }, { db, caller }) => {
      await deleteArtist(db, id, { userId: caller.userId });
      return { ok: true as const };
    }),
  ];
}
