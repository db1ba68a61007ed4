import type { PageData } from '@storefront/domain/page-data.ts';
import type { PageHead } from './page-head.ts';

/** What the server answers for a public page before any script runs (decision 058). */
export interface PageAnswer {
  /** 404 for a product that is withdrawn or unknown: crawlers drop it; the web app still runs. 301: moved to `location`. */
  status: 200 | 301 | 404 | 410;
  /** With 301: the path the page is at now (an artist's old address, decision 070). */
  location?: string;
  head: PageHead;
  /** What the page's first render reads, embedded so the web app need not ask for it. */
  data?: PageData;
  /**
   * True when the resolver hands out this same object until its data changes (a product's
   * page for one catalogue snapshot): the page is then built and compressed once.
   */
  shared?: boolean;
}

export type PageResolver = (params: Readonly<Record<string, string>>, query: URLSearchParams) => PageAnswer | Promise<PageAnswer>;

/** One address of sitemap.xml: a path on PUBLIC_URL and when its content last changed. */
export interface SitemapEntry {
  path: string;
  lastModified?: string;
}

/**
 * The public pages whose <head> the server writes, and what sitemap.xml lists. Each area
 * adds its own pages (the catalogue its products, content its pages); the web app's
 * serving reads them.
 */
export interface PublicPages {
  /** `pattern` is an address such as `/shop` or `/product/:id` (one `:name` a segment). */
  add(pattern: string, resolve: PageResolver): void;
  addToSitemap(source: () => SitemapEntry[] | Promise<SitemapEntry[]>): void;
  /**
   * The live stream's position (its last event id), read before a page's data: the web app
   * opens its stream from there and hears what changed since, instead of refetching (decision 062).
   */
  readLivePosition(read: () => string): void;
}

export interface PublicPageRegistry extends PublicPages {
  /** The page at this address, with the pattern it was added under. */
  match(pathname: string): { resolve: PageResolver; params: Record<string, string>; pattern: string } | undefined;
  sitemapEntries(): Promise<SitemapEntry[]>;
  livePosition(): string | undefined;
}

export function createPublicPages(): PublicPageRegistry {
  const exact = new Map<string, PageResolver>();
  const patterns: { pattern: string; segments: string[]; resolve: PageResolver }[] = [];
  const sources: (() => SitemapEntry[] | Promise<SitemapEntry[]>)[] = [];
  let position: (() => string) | undefined;
  return {
    readLivePosition(read) {
      position = read;
    },
    livePosition() {
      return position?.();
    },
    add(pattern, resolve) {
      if (pattern.includes(':')) patterns.push({ pattern, segments: pattern.split('/'), resolve });
      else exact.set(pattern, resolve);
    },
    addToSitemap(source) {
      sources.push(source);
    },
    match(pathname) {
      const page = exact.get(pathname);
      if (page) return { resolve: page, params: {}, pattern: pathname };
      const segments = pathname.split('/');
      for (const pattern of patterns) {
        if (pattern.segments.length !== segments.length) continue;
        const params: Record<string, string> = {};
        const matches = pattern.segments.every((part, index) => {
          const segment = segments[index] ?? '';
          if (!part.startsWith(':')) return part === segment;
          if (!segment) return false;
          try {
            params[part.slice(1)] = decodeURIComponent(segment);
            return true;
          } catch {
            return false; // a malformed escape names no page
          }
        });
        if (matches) return { resolve: pattern.resolve, params, pattern: pattern.pattern };
      }
      return undefined;
    },
    async sitemapEntries() {
      const lists = await Promise.all(sources.map((source) => source()));
      return lists.flat();
    },
  };
}
