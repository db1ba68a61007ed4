/**
 * The server's rendering of a public page's body (decision 062). `npm run build` bundles
 * this file for Node (dist/ssr/entry-server.js); the server imports it at start-up and
 * renders each page with the data it embeds, the same data main.tsx seeds its cache with.
 */
import type { ReactNode } from 'react';
import { renderToString } from 'react-dom/server';
import { prerender } from 'react-dom/static';
import type { PageData } from '@storefront/domain/page-data.ts';
import { App } from './app/app.tsx';
import { StaticRouter } from './lib/router.tsx';
import { seedQueryClient } from './lib/page-data.ts';
import { createQueryClient } from './lib/query-client.ts';

export interface RenderedPage {
  /** What goes inside <div id="root">. */
  html: string;
}

/** A Suspense boundary renderToString could not finish: the browser would render it anew. */
const UNFINISHED_BOUNDARY = '<!--$!-->';

/** A page whose code is still loading is rendered again once it arrived, this many times at most. */
const MAX_RENDERS = 4;

/**
 * Renders the app at `url` (path and query) with `data` in its query cache. Rejects when a
 * part cannot be rendered (the server then sends the plain page).
 *
 * The page must come out whole, in place: a boundary React streams later (prerender moves
 * large ones out of line) is filled by an inline script, which the Content-Security-Policy
 * (script-src 'self') forbids. So the page is written by renderToString, in one synchronous
 * pass. A lazy route or part not loaded yet suspends there; prerender, which waits, loads
 * it (a lazy component keeps what it loaded, for every later page too), and the page is
 * written again. After the first visit of each kind of page, one pass is enough.
 */
export async function renderPage(url: string, data: PageData | undefined, options: { signal?: AbortSignal; onError?: (error: unknown) => void } = {}): Promise<RenderedPage> {
  const app = () => {
    const client = createQueryClient();
    if (data) seedQueryClient(client, data);
    const Router = ({ children }: { children: ReactNode }) => <StaticRouter location={url}>{children}</StaticRouter>;
    return <App router={Router} client={client} />;
  };
  for (let attempt = 1; ; attempt += 1) {
    const html = renderToString(app());
    if (!html.includes(UNFINISHED_BOUNDARY)) return { html };
    if (attempt === MAX_RENDERS) throw new Error(`${url} could not be rendered whole in ${MAX_RENDERS} passes.`);
    const { prelude } = await prerender(app(), { signal: options.signal, onError: options.onError });
    await new Response(prelude).arrayBuffer();
  }
}
