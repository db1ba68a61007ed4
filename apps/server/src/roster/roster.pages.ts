import { responsiveImage } from '@storefront/domain/storage-images.ts';
import { ARTIST_SLUG, ARTIST_SLUG_MAX } from '@storefront/domain/roster.ts';
import type { Db } from '../db/client.ts';
import { absoluteUrl, shortDescription, SITE_NAME, type PageHead } from '../web/page-head.ts';
import type { PageAnswer, PublicPages } from '../web/public-pages.ts';
import { artistCards, readPublicArtist, type PublicArtist } from './public-artist.ts';

/** The address of an artist's page, as the web app's paths.artist writes it. */
export function artistPath(slug: string): string {
  return `/artist/${encodeURIComponent(slug)}`;
}

/** A release's and a product's addresses, as the web app's paths write them. */
const releasePath = (id: number) => `/music/${id}`;
const productPath = (id: string) => `/product/${encodeURIComponent(id)}`;

const image = (path: string) => (path ? responsiveImage(path).src : undefined);

/**
 * schema.org MusicGroup: the artist's name, page, picture, bio, links (sameAs), the label,
 * and their published releases as albums (each with its own page's address).
 */
export function artistStructuredData(artist: PublicArtist, origin: string): object {
  const url = absoluteUrl(origin, artistPath(artist.slug));
  const picture = image(artist.image);
  return {
    '@context': 'https://schema.org',
    '@type': 'MusicGroup',
    '@id': url,
    name: artist.name,
    url,
    ...(picture ? { image: absoluteUrl(origin, picture) } : {}),
    ...(artist.bio ? { description: shortDescription(artist.bio) } : {}),
    ...(artist.links.length > 0 ? { sameAs: artist.links.map((link) => link.url) } : {}),
    recordLabel: { '@type': 'Organization', name: SITE_NAME },
    album: artist.releases.map((release) => ({
      '@type': 'MusicAlbum',
      name: release.title,
      url: absoluteUrl(origin, releasePath(release.id)),
      datePublished: release.releaseDate,
    })),
    ...(artist.products.length > 0
      ? {
          makesOffer: artist.products.map((product) => ({
            '@type': 'Offer',
            itemOffered: { '@type': 'Product', name: product.name, url: absoluteUrl(origin, productPath(product.id)) },
          })),
        }
      : {}),
  };
}

/** What the page says of itself: the bio's start, or (nothing written yet) who they are at the label. */
export function artistHead(artist: PublicArtist, origin: string): PageHead {
  const works = [
    artist.releases.length > 0 ? `${artist.releases.length} ${artist.releases.length === 1 ? 'release' : 'releases'}` : '',
    artist.products.length > 0 ? `${artist.products.length} ${artist.products.length === 1 ? 'piece' : 'pieces'} of merch` : '',
  ].filter(Boolean);
  const description = artist.bio ? artist.bio : `${artist.name} at ${SITE_NAME}${works.length > 0 ? `: ${works.join(' and ')}` : ''}. Music and merch straight from the label.`;
  // Without a picture of the artist, the newest release's artwork; without either, the shop's own.
  const picture = image(artist.image) ?? image(artist.releases.find((release) => release.artwork)?.artwork ?? '');
  return {
    title: artist.name,
    description: shortDescription(description),
    path: artistPath(artist.slug),
    type: 'profile',
    ...(picture ? { image: picture } : {}),
    structuredData: [artistStructuredData(artist, origin)],
  };
}

const NOT_FOUND: PageAnswer = {
  status: 404,
  shared: true,
  head: { title: 'Artist not found', description: 'This artist is not on the roster.', path: '/artists', noindex: true },
};

/**
 * The roster's public pages (issue 36, decision 070): /artist/:slug (read per request, as
 * getArtist reads it; an old address answers 301 to the current one) and /artists, the list.
 * sitemap.xml lists every artist's current address.
 */
export function addRosterPages(pages: PublicPages, db: Db, origin: string) {
  pages.add('/artist/:slug', async (params) => {
    const slug = params.slug ?? '';
    const found = slug.length <= ARTIST_SLUG_MAX && ARTIST_SLUG.test(slug) ? await readPublicArtist(db, slug) : undefined;
    if (!found) return NOT_FOUND;
    if (found.moved) return { status: 301, location: artistPath(found.artist.slug), head: NOT_FOUND.head };
    const { updatedAt: _updatedAt, ...artist } = found.artist;
    return { status: 200, head: artistHead(artist, origin), data: { artist } };
  });
  pages.add('/artists', async () => {
    const artists = (await artistCards(db)).map(({ updatedAt: _updatedAt, ...card }) => card);
    const head: PageHead = {
      title: 'Artists',
      description: shortDescription(artists.length > 0 ? `The artists of ${SITE_NAME}: ${artists.map((artist) => artist.name).join(', ')}.` : `The artists of ${SITE_NAME}.`),
      path: '/artists',
    };
    return { status: 200, head, data: { artists } };
  });
  pages.addToSitemap(async () => [
    { path: '/artists' },
    ...(await artistCards(db)).map((artist) => ({ path: artistPath(artist.slug), lastModified: artist.updatedAt.toISOString() })),
  ]);
}
