import { safeImageSrc } from '@storefront/domain/content.ts';
import type { FunctionOutput } from '@storefront/domain/contracts/index.ts';
import type { ReadOutput } from '@storefront/domain/contracts/rest.ts';

/** What `GET /api/pages/:slug` answers, as its contract says (decision 048): the page's JSON body as the label wrote it. */
export type PageResponse = ReadOutput<'readPage'>;

export interface Cover {
  title: string;
  artist: string;
  year: number | null;
  image: string;
  url: string;
}

export interface HomeContent {
  intro: string;
  covers: Cover[];
  copyright: string;
}

export interface ContentSection {
  heading: string;
  paragraphs: string[];
}

/** One entry of the label's history, as listHistory's contract says (decision 025). */
export type TimelineEntry = FunctionOutput<'listHistory'>['entries'][number];

// The body comes from content/*.json (the seed) or the console, so read it defensively: a missing or
// malformed field drops that item instead of breaking the page.

type Loose = Record<string, unknown>;

const isObject = (value: unknown): value is Loose => typeof value === 'object' && value !== null;
const text = (value: unknown): string => (typeof value === 'string' ? value : '');

export function readHomeContent(body: unknown): HomeContent {
  const data = isObject(body) ? body : {};
  const covers = Array.isArray(data.covers) ? data.covers.filter(isObject) : [];
  return {
    intro: text(data.intro),
    covers: covers
      .map((cover) => ({
        title: text(cover.title),
        artist: text(cover.artist),
        year: typeof cover.year === 'number' ? cover.year : null,
        // Same-origin images only (the server stores them so); another is dropped.
        image: safeImageSrc(text(cover.image)) ?? '',
        url: text(cover.url),
      }))
      .filter((cover) => cover.title && cover.image),
    copyright: text(data.copyright),
  };
}

export function readSections(body: unknown): ContentSection[] {
  const data = isObject(body) ? body : {};
  const sections = Array.isArray(data.sections) ? data.sections.filter(isObject) : [];
  return sections.map((section) => ({
    heading: text(section.heading),
    paragraphs: Array.isArray(section.paragraphs) ? section.paragraphs.map(text).filter(Boolean) : [],
  }));
}
