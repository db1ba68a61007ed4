import { responsiveImage } from '@storefront/domain/storage-images.ts';
import { CURRENCY } from '../catalog/catalog.pages.ts';
import type { Db } from '../db/client.ts';
import { absoluteUrl, decimalPrice, shortDescription, SITE_NAME, type Availability, type PageHead } from '../web/page-head.ts';
import type { PageAnswer, PublicPages } from '../web/public-pages.ts';
import { getPublicRelease, listPublishedReleases, type ArtistsOfRelease, type PublicRelease } from './releases.service.ts';
import { saleProducts } from './sales.service.ts';

const SCHEMA = 'https://schema.org/';

/** schema.org's release types (MusicAlbumReleaseType) by the console's kinds. */
const RELEASE_TYPE: Record<PublicRelease['kind'], string> = { album: 'AlbumRelease', ep: 'EPRelease', single: 'SingleRelease' };

/** A release id as the address carries it; ids are Postgres integers (serial). */
const RELEASE_ID = /^\d{1,10}$/;
const MAX_ID = 2_147_483_647;

/** The address of a release's page, as the web app's paths.music writes it. */
export function releasePath(id: number): string {
  return `/music/${id}`;
}

/** A track's length as schema.org writes a Duration: PT3M20S. */
function isoDuration(seconds: number): string {
  return `PT${Math.floor(seconds / 60)}M${seconds % 60}S`;
}

function availability(release: PublicRelease): Availability {
  // A download never sells out; a street date still to come is a preorder (decision 054).
  return release.preorder ? 'PreOrder' : 'InStock';
}

/** The preview image: the artwork's default-width variant (as a product's first image). */
function artworkImage(release: PublicRelease): string | undefined {
  return release.artwork ? responsiveImage(release.artwork).src : undefined;
}

/**
 * schema.org MusicAlbum: the artist, the release type and date, the artwork, the tracks in
 * order (each a MusicRecording, with its own Offer when it sells alone), and an Offer for the
 * whole release while its product is on sale ("name your price": the minimum, marked as such).
 */
export function releaseStructuredData(release: PublicRelease, origin: string): object {
  const url = absoluteUrl(origin, releasePath(release.id));
  // The roster's artists with their pages (decision 070); before any is credited, the credit text.
  const groups = release.artists.map((entry) => ({ '@type': 'MusicGroup', name: entry.name, url: absoluteUrl(origin, `/artist/${encodeURIComponent(entry.slug)}`) }));
  const artist = groups.length === 0 ? { '@type': 'MusicGroup', name: release.artist } : groups.length === 1 ? groups[0] : groups;
  const offer = (priceCents: number, minimum: boolean) => ({
    '@type': 'Offer',
    price: decimalPrice(priceCents),
    priceCurrency: CURRENCY,
    availability: `${SCHEMA}${availability(release)}`,
    ...(release.preorder ? { availabilityStarts: release.releaseDate } : {}),
    ...(minimum ? { priceSpecification: { '@type': 'PriceSpecification', minPrice: decimalPrice(priceCents), priceCurrency: CURRENCY } } : {}),
    url,
  });
  const image = artworkImage(release);
  return {
    '@context': 'https://schema.org',
    '@type': 'MusicAlbum',
    '@id': url,
    name: release.title,
    url,
    byArtist: artist,
    albumReleaseType: `${SCHEMA}${RELEASE_TYPE[release.kind]}`,
    datePublished: release.releaseDate,
    ...(image ? { image: absoluteUrl(origin, image) } : {}),
    recordLabel: { '@type': 'Organization', name: SITE_NAME },
    numTracks: release.tracks.length,
    track: {
      '@type': 'ItemList',
      numberOfItems: release.tracks.length,
      itemListElement: release.tracks.map((track) => ({
        '@type': 'ListItem',
        position: track.position,
        item: {
          '@type': 'MusicRecording',
          name: track.title,
          byArtist: artist,
          ...(track.durationSeconds !== null ? { duration: isoDuration(track.durationSeconds) } : {}),
          ...(track.productId && track.priceCents !== null ? { offers: offer(track.priceCents, false) } : {}),
        },
      })),
    },
    ...(release.productId ? { offers: offer(release.priceCents, release.nameYourPrice) } : {}),
  };
}

export function releaseHead(release: PublicRelease, origin: string): PageHead {
  const tracks = release.tracks.length === 1 ? '1 track' : `${release.tracks.length} tracks`;
  const kind = release.kind === 'ep' ? 'EP' : release.kind;
  return {
    title: release.title,
    description: shortDescription(
      `${release.title} by ${release.artist}: the ${kind}, ${tracks}, out ${release.releaseDate}. Preview it, then download it in MP3, AAC, FLAC or ALAC.`,
    ),
    path: releasePath(release.id),
    type: 'music.album',
    image: artworkImage(release),
    ...(release.productId ? { offer: { priceCents: release.priceCents, currency: CURRENCY, availability: availability(release) } } : {}),
    structuredData: [releaseStructuredData(release, origin)],
  };
}

const NOT_FOUND: PageAnswer = {
  status: 404,
  shared: true,
  head: { title: 'Release not found', description: 'This release is not in the shop.', path: '/shop', noindex: true },
};

/** A published release as getRelease answers it (the release page's data), or undefined. */
export async function readPublicRelease(db: Db, id: number, artistsOfRelease: ArtistsOfRelease): Promise<PublicRelease | undefined> {
  const release = await getPublicRelease(db, id, await saleProducts(db, id));
  return release && { ...release, artists: await artistsOfRelease(id) };
}

/**
 * A digital release's page, /music/:id (decisions 058, 062): its head, JSON-LD and data (the
 * getRelease answer) read per request, as that read is. A draft, withdrawn (unpublished) or
 * unknown release answers 404; sitemap.xml lists the published ones.
 */
export function addReleasePages(pages: PublicPages, db: Db, origin: string, artistsOfRelease: ArtistsOfRelease) {
  pages.add('/music/:id', async (params) => {
    const id = RELEASE_ID.test(params.id ?? '') ? Number(params.id) : 0;
    const release = id > 0 && id <= MAX_ID ? await readPublicRelease(db, id, artistsOfRelease) : undefined;
    if (!release) return NOT_FOUND;
    return { status: 200, head: releaseHead(release, origin), data: { release } };
  });
  pages.addToSitemap(async () => (await listPublishedReleases(db)).map((release) => ({ path: releasePath(release.id), lastModified: release.updatedAt.toISOString() })));
}
