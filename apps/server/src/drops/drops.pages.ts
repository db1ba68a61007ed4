import { responsiveImage } from '@storefront/domain/storage-images.ts';
import type { Db } from '../db/client.ts';
import { AppError } from '../errors.ts';
import { shortDescription, SITE_NAME, type PageHead } from '../web/page-head.ts';
import type { PageAnswer, PublicPages } from '../web/public-pages.ts';
import { getPublicDrop, listOpenDrops } from './drops.service.ts';

/** The address of a drop's page, as the web app's paths.drop writes it. */
export function dropPath(slug: string): string {
  return `/drops/${encodeURIComponent(slug)}`;
}

type PublicDrop = Awaited<ReturnType<typeof getPublicDrop>>;

const when = (iso: string) => `${new Date(iso).toISOString().replace('T', ' ').slice(0, 16)} UTC`;

function dropHead(drop: PublicDrop, fairness: boolean): PageHead {
  const items = drop.items.map((item) => item.name).join(', ');
  const state =
    drop.status === 'live'
      ? 'Live now: join the queue.'
      : drop.status === 'sold-out'
        ? 'Sold out: join the waitlist.'
        : drop.status === 'cancelled'
          ? 'This drop was cancelled.'
          : `Starts ${when(drop.startsAt)}; the queue opens ${when(drop.queueOpensAt)}.`;
  const image = drop.items.find((item) => item.image)?.image;
  return {
    title: fairness ? `Fairness of ${drop.name}` : drop.name,
    description: fairness
      ? shortDescription(`Check the order of ${drop.name} at ${SITE_NAME}: the committed seed, the entry list's hash and every position, recomputed in your browser.`)
      : shortDescription(`${drop.name} at ${SITE_NAME}, a fair queue anyone can check: ${items}. ${state}`),
    path: fairness ? `${dropPath(drop.slug)}/fairness` : dropPath(drop.slug),
    image: image ? responsiveImage(image).src : undefined,
  };
}

const NOT_FOUND: PageAnswer = {
  status: 404,
  shared: true,
  head: { title: 'Drop not found', description: 'This drop does not exist.', path: '/shop', noindex: true },
};

async function readDrop(db: Db, slug: string): Promise<PublicDrop | undefined> {
  try {
    return await getPublicDrop(db, { slug });
  } catch (error) {
    if (error instanceof AppError && error.code === 'not-found') return undefined;
    throw error;
  }
}

/**
 * A drop's page and its fairness page (issue 35, decision 069): head with link previews (the
 * first product image) and getDrop's answer as the page's data, read per request (the queue
 * moves). sitemap.xml lists drops that are scheduled, postponed or live.
 */
export function addDropPages(pages: PublicPages, db: Db) {
  for (const fairness of [false, true]) {
    pages.add(fairness ? '/drops/:slug/fairness' : '/drops/:slug', async (params) => {
      const drop = await readDrop(db, params.slug ?? '');
      if (!drop) return NOT_FOUND;
      return { status: 200, head: dropHead(drop, fairness), data: { drop } };
    });
  }
  pages.addToSitemap(async () => (await listOpenDrops(db)).map((drop) => ({ path: dropPath(drop.slug) })));
}
