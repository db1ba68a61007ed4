import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { Db } from '../db/client.ts';
import type { Caller } from '../functions/registry.ts';
import { RELEASE_MESSAGES } from '@storefront/domain/catalog.ts';
import { shopQuery } from '@storefront/domain/catalog-schemas.ts';
import { AppError } from '../errors.ts';
import { type CatalogCache } from './catalog.cache.ts';
import { COMPRESS_THRESHOLD, etagMatches, preferredEncoding, representation, type Representation } from '../http/representation.ts';
import { getProduct, listShopPage } from './catalog.service.ts';
import type { ProductsOfArtist } from './product-cards.service.ts';

const productParams = z.object({ id: z.string().min(1).max(64) });

/**
 * Sends a cached body: 304 when the client has it, else compressed as the client allows.
 * Synchronous unless a compressed form must be waited for: these are the shop's hottest
 * reads, and each promise on the way costs (decision 015).
 */
function sendRepresentation(request: FastifyRequest, reply: FastifyReply, representation: Representation): Promise<FastifyReply> | undefined {
  void reply.header('cache-control', 'no-cache').header('etag', representation.etag).header('vary', 'accept-encoding');
  if (etagMatches(request.headers['if-none-match'], representation.etag)) {
    void reply.code(304).send();
    return undefined;
  }
  void reply.type('application/json; charset=utf-8');
  const encoding = representation.body.length >= COMPRESS_THRESHOLD ? preferredEncoding(request.headers['accept-encoding']) : 'identity';
  if (encoding === 'identity') {
    void reply.send(representation.body);
    return undefined;
  }
  return representation.encoded(encoding).then((bytes) => reply.header('content-encoding', encoding).send(bytes));
}

/** Page data for the shop and product pages (GET, served from the catalogue cache with ETags). */
export async function catalogRoutes(
  app: FastifyInstance,
  options: { db: Db; cache: CatalogCache; resolveCaller: (request: FastifyRequest) => Promise<Caller | null>; productsOfArtist: ProductsOfArtist },
) {
  // These bodies are compressed once, in the cache: the per-response compress hook is off,
  // and so is the request-body decompression hook (a GET has no body).
  const cached = { compress: false, decompress: false } as const;

  // The shop, a page at a time (issue 17): ?q= searches names and descriptions, ?category=
  // picks a category by id, ?artist= an artist by address (decision 070), ?after= is the previous page's `next`, ?limit= 1 to 60.
  // A first page without a search is the same for everyone: it comes from the cache.
  app.get('/api/products', cached, (request, reply) => {
    const query = request.query as Record<string, unknown>;
    let keys = 0;
    for (const key in query) if (Object.hasOwn(query, key)) keys += 1;
    if (keys === 0) {
      const loaded = options.cache.loaded();
      if (loaded) return sendRepresentation(request, reply, loaded.list);
      return options.cache.snapshot().then((snapshot) => sendRepresentation(request, reply, snapshot.list) ?? reply);
    }
    return shopPage(request, reply);
  });

  async function shopPage(request: FastifyRequest, reply: FastifyReply) {
    const parsed = shopQuery.safeParse(request.query);
    if (!parsed.success) throw new AppError('invalid-argument', parsed.error.issues[0]?.message ?? 'That shop query is not valid.');
    const { q, category, artist, after, limit } = parsed.data;
    if (!q && !artist && !after && limit === undefined) {
      const snapshot = await options.cache.snapshot();
      return sendRepresentation(request, reply, category ? snapshot.categoryPage(category) : snapshot.list) ?? reply;
    }
    // Searches and later pages are read from the database (indexed, decision 030), with an
    // ETag like the cached first page (the compress hook is off for this route).
    const page = await listShopPage(options.db, { q: q || undefined, category: category || undefined, artist: artist || undefined, after, limit }, options.productsOfArtist);
    return sendRepresentation(request, reply, representation(page)) ?? reply;
  }

  app.get<{ Params: { id: string } }>('/api/products/:id', cached, (request, reply) => {
    // An active product reads the same for everyone, so it comes from the cache; an id the
    // cache does not hold (any string: it is only looked up) takes the slower path.
    const active = options.cache.loaded()?.product(request.params.id);
    if (active) return sendRepresentation(request, reply, active);
    return productPage(request, reply);
  });

  async function productPage(request: FastifyRequest, reply: FastifyReply) {
    const parsed = productParams.safeParse(request.params);
    // An id that cannot exist is simply not found, like an unknown one.
    if (!parsed.success) throw new AppError('not-found', RELEASE_MESSAGES.notFound);
    const { id } = parsed.data;
    const active = (await options.cache.snapshot()).product(id);
    if (active) return sendRepresentation(request, reply, active) ?? reply;
    // Only admins see inactive products, and that answer is theirs alone.
    const caller = await options.resolveCaller(request);
    if (!caller?.isAdmin) throw new AppError('not-found', RELEASE_MESSAGES.notFound);
    void reply.header('cache-control', 'private, no-cache');
    return { product: await getProduct(options.db, id, { includeInactive: true }) };
  }
}
