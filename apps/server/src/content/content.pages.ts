import type { Config } from '../config.ts';
import type { Db } from '../db/client.ts';
import { absoluteUrl, SITE_DESCRIPTION, SITE_NAME, SITE_PREVIEW_IMAGE, type PageHead } from '../web/page-head.ts';
import type { PageAnswer, PublicPages } from '../web/public-pages.ts';
import { findPage, getContactEmail } from './content.service.ts';

/** The label's own pages: their addresses (the web app's paths), titles and descriptions. */
const CONTENT_PAGES: readonly (PageHead & { slug?: string })[] = [
  { title: 'About', description: `Who ${SITE_NAME} are: the label, its artists and its story.`, path: '/about', slug: 'about' },
  { title: 'History', description: `The releases of ${SITE_NAME}, one year after another.`, path: '/history' },
  { title: 'Contact', description: `How to reach ${SITE_NAME}.`, path: '/contact' },
  { title: 'Privacy Policy', description: `What ${SITE_NAME} keeps about you, and why.`, path: '/privacy-policy', slug: 'privacy-policy' },
];

/** schema.org Organization: the label, on the home page. */
export function organizationStructuredData(origin: string, email: string): object {
  return {
    '@context': 'https://schema.org',
    '@type': 'Organization',
    '@id': `${origin}/#organization`,
    name: SITE_NAME,
    url: absoluteUrl(origin, '/home'),
    logo: absoluteUrl(origin, '/favicon.svg'),
    email,
  };
}

/** The home page (at / and /home, canonical /home) and the content pages (decision 058). */
export function addContentPages(pages: PublicPages, { db, config, origin }: { db: Db; config: Config; origin: string }) {
  // The pages the label writes in the console carry their text (GET /api/pages/:slug's
  // answer) for the web app: read per request, as that read is.
  const home = async (): Promise<PageAnswer> => {
    const [email, page] = await Promise.all([getContactEmail(db, config.CONTACT_EMAIL), findPage(db, 'home')]);
    const head = { title: 'Home', description: SITE_DESCRIPTION, path: '/home', image: SITE_PREVIEW_IMAGE, structuredData: [organizationStructuredData(origin, email)] };
    return { status: 200, head, data: { content: { slug: 'home', page } } };
  };
  pages.add('/', home);
  pages.add('/home', home);
  for (const { slug, ...head } of CONTENT_PAGES) {
    const answer: PageAnswer = { status: 200, shared: true, head };
    pages.add(head.path, slug ? async () => ({ status: 200, head, data: { content: { slug, page: await findPage(db, slug) } } }) : () => answer);
  }
  pages.addToSitemap(() => [{ path: '/home' }, ...CONTENT_PAGES.map((head) => ({ path: head.path }))]);
}
