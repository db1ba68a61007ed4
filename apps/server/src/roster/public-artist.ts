import type { z } from 'zod';
import type { artistCardOutput, publicArtistOutput } from '@storefront/domain/contracts/roster.ts';
import { activeProductCards } from '../catalog/product-cards.service.ts';
import type { Db } from '../db/client.ts';
import { listPublishedReleaseCards, releasesOfTracks } from '../digital/releases.service.ts';
import { releaseProductLinks } from '../digital/sales.service.ts';
import { creditsOf, findArtistBySlug, listArtists, type ArtistRow } from './roster.service.ts';

export type PublicArtist = z.input<typeof publicArtistOutput>;
export type ArtistCard = z.input<typeof artistCardOutput>;

/**
 * An artist's page as fans see it (decision 070): the record, the published releases that
 * credit them (on the release or on a track), and the merch on sale that credits them. A
 * product that sells a release as files is the release itself, shown under Releases.
 */
export async function publicArtist(db: Db, artist: ArtistRow): Promise<PublicArtist & { updatedAt: Date }> {
  const credits = await creditsOf(db, artist.id);
  const releaseIds = [...new Set([...credits.releaseIds, ...(await releasesOfTracks(db, credits.trackIds))])];
  const [releases, cards, links] = await Promise.all([
    listPublishedReleaseCards(db, releaseIds),
    activeProductCards(db, credits.productIds),
    releaseProductLinks(db, { productIds: credits.productIds }),
  ]);
  const files = new Set(links.filter((link) => link.kind === 'sale').map((link) => link.productId));
  const updatedAt = [artist.updatedAt, ...releases.map((release) => release.updatedAt)].reduce((latest, at) => (at > latest ? at : latest));
  return {
    id: artist.id,
    name: artist.name,
    slug: artist.slug,
    bio: artist.bio,
    image: artist.image,
    links: artist.links,
    releases: releases.map(({ id, kind, title, releaseDate, artwork }) => ({ id, kind, title, releaseDate, artwork })),
    products: cards.filter((card) => !files.has(card.id)),
    updatedAt,
  };
}

/** The artist at an address or an old one of theirs (the answer's slug is the current one). */
export async function readPublicArtist(db: Db, slug: string): Promise<{ artist: PublicArtist & { updatedAt: Date }; moved: boolean } | undefined> {
  const found = await findArtistBySlug(db, slug);
  if (!found) return undefined;
  return { artist: await publicArtist(db, found.artist), moved: found.moved };
}

export async function artistCards(db: Db): Promise<(ArtistCard & { updatedAt: Date })[]> {
  return (await listArtists(db)).map((artist) => ({ name: artist.name, slug: artist.slug, image: artist.image, updatedAt: artist.updatedAt }));
}
