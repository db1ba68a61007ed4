import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fastifyStatic from '@fastify/static';
import { COMPRESS_THRESHOLD, etagMatches, preferredEncoding, representationOf, type Representation } from '../http/representation.ts';
import { shopOrigin, takesTestPayments, type Config } from '../config.ts';
import { errorBody } from '../http/error-handler.ts';
import { escapeHtml } from '../http/html.ts';
import { withTestModeBanner } from '../http/test-mode.ts';
import { sendStorageError } from '../storage/storage.errors.ts';
import { pageDataScript, renderHead } from './page-head.ts';
import type { PageAnswer, PublicPageRegistry } from './public-pages.ts';
import { loadPageRenderer, SSR_DIR } from './page-renderer.ts';
import { loadRouteAssets } from './route-assets.ts';
import { LIVE_POSITION_ATTRIBUTE, SERVER_RENDERED_ATTRIBUTE } from '@storefront/domain/page-data.ts';
import { crawlerRoutes } from './crawler.routes.ts';

const IMMUTABLE = 'public, max-age=31536000, immutable';

/**
 * index.html cut where a page's own <head> tags go (its generic title and description are
 * replaced by the page's, decision 058) and where the server-rendered body goes: the inside
 * of <div id="root"> (decision 062). Undefined when the file has no </head>.
 */
interface PageTemplate {
  /** Up to </head>. */
  head: string;
  /** From </head> up to the root element's opening tag, without it. */
  beforeRoot: string;
  /** The root's contents without JavaScript: the loading shell. */
  shell: string;
  /** From the root's closing tag on. */
  afterRoot: string;
}

const ROOT_TAG = '<div id="root">';

function pageTemplate(html: string): PageTemplate | undefined {
  const stripped = html.replace(/<title>[^<]*<\/title>\s*/i, '').replace(/<meta name="description"[^>]*>\s*/i, '');
  const at = stripped.search(/<\/head>/i);
  if (at < 0) return undefined;
  const rest = stripped.slice(at);
  const rootAt = rest.indexOf(ROOT_TAG);
  // The root's closing tag is the one right before the page's <noscript>, first <script> or </body>
  // (the no-JavaScript note stands before the root since issue 39, and the build moves the script to the head).
  const closeAt = rootAt < 0 ? -1 : rest.slice(rootAt).search(/<\/div>\s*<(noscript|script|\/body)/i);
  if (closeAt < 0) return { head: stripped.slice(0, at), beforeRoot: rest, shell: '', afterRoot: '' };
  return {
    head: stripped.slice(0, at),
    beforeRoot: rest.slice(0, rootAt),
    shell: rest.slice(rootAt + ROOT_TAG.length, rootAt + closeAt),
    afterRoot: rest.slice(rootAt + closeAt),
  };
}

/** The loading spinner of index.html's shell, up to the end of its <main>. */
const LOADING_PART = /<div class="page-loading">[\s\S]*?<\/main>/;

/**
 * A page that is not there (404, 410) says so in its body, not "Loading page…" (issue 39):
 * a visitor without JavaScript and a crawler read why; the web app then renders its own.
 */
function missingShell(shell: string, answer: PageAnswer): string {
  const said =
    `<section class="page"><h1>${escapeHtml(answer.head.title)}</h1><p>${escapeHtml(answer.head.description)}</p>` +
    `<p><a class="button" href="/shop">Back to the shop</a></p></section></main>`;
  return shell.replace(LOADING_PART, said);
}

/**
 * Sends a kept page: 304 when the client has it, else compressed as the client allows.
 * Undefined when sent at once (a handler returning it waits on nothing, as the JSON read's).
 */
function sendPage(request: FastifyRequest, reply: FastifyReply, status: number, page: Representation): Promise<FastifyReply> | undefined {
  void reply.code(status).header('cache-control', 'no-cache').header('etag', page.etag).header('vary', 'accept-encoding').type('text/html; charset=utf-8');
  if (status === 200 && etagMatches(request.headers['if-none-match'], page.etag)) {
    void reply.code(304).send();
    return undefined;
  }
  const encoding = page.body.length >= COMPRESS_THRESHOLD ? preferredEncoding(request.headers['accept-encoding']) : 'identity';
  // Uncompressed only when the compress hook would not compress either; it leaves a reply
  // that names its encoding alone.
  if (encoding === 'identity') {
    void reply.send(page.body);
    return undefined;
  }
  const ready = encodedNow.get(page)?.[encoding];
  if (ready) {
    void reply.header('content-encoding', encoding).send(ready);
    return undefined;
  }
  return page.encoded(encoding).then((bytes) => {
    encodedNow.set(page, { ...encodedNow.get(page), [encoding]: bytes });
    return reply.header('content-encoding', encoding).send(bytes);
  });
}

/** A kept page's compressed bytes once made, so later replies send them without a promise. */
const encodedNow = new WeakMap<Representation, Partial<Record<'br' | 'gzip', Buffer>>>();

/**
 * Serves the built SPA: hashed assets cached for a year, index.html for client routes,
 * with each public page's own title, description, canonical URL, previews and structured
 * data in its <head> (decision 058), and sitemap.xml and robots.txt.
 */
export async function registerWebApp(app: FastifyInstance, config: Config, pages: PublicPageRegistry) {
  const origin = shopOrigin(config);
  const indexPath = path.join(config.webDistDir, 'index.html');
  const hasBuild = fs.existsSync(indexPath);
  // Read once: this process serves the build it started with, even after a new build is
  // installed beside it (old assets stay, decision 021). Fake payments: the TEST MODE banner.
  const indexHtml = hasBuild ? fs.readFileSync(indexPath, 'utf8') : '';
  const page = takesTestPayments(config) ? withTestModeBanner(indexHtml) : indexHtml;
  const template = pageTemplate(page);
  const renderBody = hasBuild && template?.afterRoot ? await loadPageRenderer(config.webDistDir, (err, message) => app.log.warn({ err }, message)) : undefined;
  // The page's own stylesheets, in the head: painted styled, not moved when its code arrives.
  const routeAssets = hasBuild ? loadRouteAssets(config.webDistDir) : undefined;
  // Another page (the console): the plain page, with the chunks its address needs preloaded
  // (issue 39 item 18). One text per set of chunks, made once.
  const headEnd = page.search(/<\/head>/i);
  const clientPages = new Map<string, string>();
  const clientPage = (pathname: string) => {
    const links = routeAssets?.clientLinks(pathname) ?? '';
    if (links === '' || headEnd < 0) return page;
    let made = clientPages.get(links);
    if (made === undefined) {
      made = page.slice(0, headEnd) + links + page.slice(headEnd);
      clientPages.set(links, made);
    }
    return made;
  };
  const html = async (answer: PageAnswer, url: string, position: string | undefined, links: string) => {
    const data = answer.data ? pageDataScript(answer.data) : '';
    const head = template!.head + renderHead(answer.head, origin) + links + data;
    // A page that is there is rendered on the server; a 404 keeps the shell (the browser says why).
    const body = renderBody && answer.status === 200 ? await renderBody(url, answer.data) : undefined;
    const shell = answer.status === 200 ? template!.shell : missingShell(template!.shell, answer);
    if (body === undefined) return head + template!.beforeRoot + (template!.afterRoot ? ROOT_TAG + shell + template!.afterRoot : '');
    // The stream's position when the data was read (taken before it): the app's stream
    // resumes from there, so it hears a change made since instead of refetching all.
    const live = position && /^[a-z0-9-]+$/.test(position) ? ` ${LIVE_POSITION_ATTRIBUTE}="${position}"` : '';
    return `${head}${template!.beforeRoot}<div id="root" ${SERVER_RENDERED_ATTRIBUTE}${live}>${body}${template!.afterRoot}`;
  };
  // A shared answer (one product in one catalogue snapshot) is rendered and compressed once.
  const rendered = new WeakMap<PageAnswer, Promise<Representation>>();
  // The same, once made: sent without waiting on a promise (the JSON read's cost, decision 062).
  const renderedNow = new WeakMap<PageAnswer, Representation>();
  const render = (answer: PageAnswer, url: string, position: string | undefined, links: string): Promise<Representation> => {
    let kept = rendered.get(answer);
    if (!kept) {
      kept = html(answer, url, position, links).then((text) => {
        const made = representationOf(Buffer.from(text));
        renderedNow.set(answer, made);
        return made;
      });
      rendered.set(answer, kept);
      // A failed rendering is not kept (html() itself falls back to the plain page, so rarely).
      kept.catch(() => rendered.delete(answer));
    }
    return kept;
  };
  const answerPage = async (request: FastifyRequest, reply: FastifyReply, answer: PageAnswer, renderUrl: string, position: string | undefined, links: string) => {
    // A page that moved (an artist's old address): its query goes along.
    if (answer.status === 301 && answer.location) {
      const queryAt = renderUrl.indexOf('?');
      return reply.header('cache-control', 'no-cache').redirect(answer.location + (queryAt < 0 ? '' : renderUrl.slice(queryAt)), 301);
    }
    if (answer.shared) return sendPage(request, reply, answer.status, await render(answer, renderUrl, position, links)) ?? reply;
    // Made for this request (a content page read from the database): the compress hook compresses it.
    const text = await html(answer, renderUrl, position, links);
    return reply.code(answer.status).header('cache-control', 'no-cache').type('text/html; charset=utf-8').send(text);
  };

  if (hasBuild) {
    await app.register(fastifyStatic, {
      root: config.webDistDir,
      prefix: '/',
      wildcard: false,
      index: false,
      // /index.html too is the page below (with the banner when payments are fake); the
      // server's rendering module is not for browsers.
      allowedPath: (pathName) => pathName !== '/index.html' && !pathName.startsWith(`/${SSR_DIR}/`),
      cacheControl: false,
      preCompressed: false,
      setHeaders(res, filePath) {
        const hashed = filePath.includes(`${path.sep}assets${path.sep}`);
        res.setHeader('cache-control', hashed ? IMMUTABLE : 'public, max-age=300');
      },
    });
  }

  await app.register(crawlerRoutes, { origin, pages });

  app.setNotFoundHandler((request, reply) => {
    const url = request.url;
    const isStorage = url.startsWith('/v0/') || url === '/v0' || url.startsWith('/img/');
    const isApi = isStorage || url.startsWith('/fn/') || url.startsWith('/api/') || url === '/fn' || url === '/api';
    const queryAt = url.indexOf('?');
    const pathOnly = queryAt < 0 ? url : url.slice(0, queryAt);
    const wantsPage = request.method === 'GET' && !isApi && (!path.extname(pathOnly) || pathOnly === '/index.html');
    if (wantsPage && hasBuild) {
      const publicPage = template ? pages.match(pathOnly) : undefined;
      if (publicPage) {
        const position = pages.livePosition();
        const links = routeAssets?.pageLinks(publicPage.pattern) ?? '';
        const answer = publicPage.resolve(publicPage.params, new URLSearchParams(queryAt < 0 ? '' : url.slice(queryAt + 1)));
        // The address the app renders: the path and its query (the shop's search and category).
        const renderUrl = queryAt < 0 ? pathOnly : pathOnly + url.slice(queryAt);
        if (answer instanceof Promise) return answer.then((resolved) => answerPage(request, reply, resolved, renderUrl, position, links));
        // Kept and made already (a product in this catalogue snapshot): sent at once.
        const ready = renderedNow.get(answer);
        if (ready) return sendPage(request, reply, answer.status, ready);
        return answerPage(request, reply, answer, renderUrl, position, links);
      }
      return reply.header('cache-control', 'no-cache').type('text/html; charset=utf-8').send(clientPage(pathOnly));
    }
    if (wantsPage) {
      return reply.status(503).type('text/plain; charset=utf-8').send('The web app has not been built yet: run `npm run build` (npm start does it for you).');
    }
    const message = `Nothing at ${request.method} ${pathOnly}.`;
    // The storage service answers in its own error shape, which the storage SDKs read.
    if (isStorage) return sendStorageError(reply, 'unknown', 404, message);
    return reply.status(404).send(errorBody('not-found', message));
  });
}
