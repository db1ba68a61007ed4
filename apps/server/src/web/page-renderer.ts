import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { PageData } from '@storefront/domain/page-data.ts';

/** apps/web/dist/ssr/entry-server.js, which `npm run build` makes (scripts/build.mjs, decision 062). */
/** The folder of apps/web/dist that holds it; never served. */
export const SSR_DIR = 'ssr';
export const SSR_ENTRY = path.join(SSR_DIR, 'entry-server.js');

/** How long a page may take to render before the plain page is sent instead. */
const RENDER_TIMEOUT_MS = 5_000;

/** The web app's entry-server.tsx, as the server calls it. */
interface RenderModule {
  renderPage(url: string, data: PageData | undefined, options: { signal?: AbortSignal; onError?: (error: unknown) => void }): Promise<{ html: string }>;
}

/**
 * Renders a public page's body (the inside of #root), or undefined when it cannot: then the
 * page goes out as before, and the browser renders it (decision 062).
 */
export type PageRenderer = (url: string, data: PageData | undefined) => Promise<string | undefined>;

/**
 * The web build's server rendering, loaded once at start-up; undefined when the build has
 * none (a build from before decision 062, or a test's hand-written index.html).
 * `warn` hears every render that failed.
 */
export async function loadPageRenderer(webDistDir: string, warn: (error: unknown, message: string) => void): Promise<PageRenderer | undefined> {
  const file = path.join(webDistDir, SSR_ENTRY);
  if (!fs.existsSync(file)) return undefined;
  const module = (await import(pathToFileURL(file).href)) as RenderModule;
  return async (url, data) => {
    let failed = false;
    try {
      const { html } = await module.renderPage(url, data, {
        signal: AbortSignal.timeout(RENDER_TIMEOUT_MS),
        onError: (error) => {
          failed = true;
          warn(error, `server rendering of ${url} failed in part`);
        },
      });
      // A part the server could not render would make the browser log a recoverable error
      // and render it anew: the plain page is the honest answer.
      return failed ? undefined : html;
    } catch (error) {
      warn(error, `server rendering of ${url} failed`);
      return undefined;
    }
  };
}
