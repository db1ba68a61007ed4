import type { FastifyInstance } from 'fastify';
import type { PublicPageRegistry, SitemapEntry } from './public-pages.ts';

/** Pages that are a visitor's own or the label's console: not for search engines (decision 058). */
export const PRIVATE_PAGES = [
  '/release',
  '/checkout',
  '/order-confirmation',
  '/account',
  '/my-orders',
  '/wallet',
  '/cashout',
  '/portal',
  '/login',
  '/signup',
  '/reset-password',
  '/pay/',
  '/dev/',
];

export function sitemapXml(origin: string, entries: SitemapEntry[]): string {
  const escape = (value: string) => value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c] ?? c);
  const urls = entries.map(({ path: address, lastModified }) => {
    const lastmod = lastModified ? `<lastmod>${escape(lastModified)}</lastmod>` : '';
    return `<url><loc>${escape(new URL(address, `${origin}/`).href)}</loc>${lastmod}</url>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls.join('')}</urlset>\n`;
}

export function robotsTxt(origin: string): string {
  const disallow = PRIVATE_PAGES.map((page) => `Disallow: ${page}`).join('\n');
  return `User-agent: *\n${disallow}\n\nSitemap: ${origin}/sitemap.xml\n`;
}

/** sitemap.xml (the public pages' sources: the catalogue cache, the content pages) and robots.txt. */
export async function crawlerRoutes(app: FastifyInstance, { origin, pages }: { origin: string; pages: PublicPageRegistry }) {
  app.get('/robots.txt', async (_request, reply) => reply.header('cache-control', 'public, max-age=300').type('text/plain; charset=utf-8').send(robotsTxt(origin)));

  // Reads the catalogue cache, so a released or withdrawn product shows at once.
  app.get('/sitemap.xml', async (_request, reply) => {
    const xml = sitemapXml(origin, await pages.sitemapEntries());
    return reply.header('cache-control', 'no-cache').type('application/xml; charset=utf-8').send(xml);
  });
}
