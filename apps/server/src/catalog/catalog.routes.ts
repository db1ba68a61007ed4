import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { Db } from '../db/client.ts';
import type { Caller } from '../functions/registry.ts';
import { RELEASE_MESSAGES } from '@storefront/domain/catalog.ts';
import { AppError } from '../http/errors.ts';
import { COMPRESS_THRESHOLD, etagMatches, preferredEncoding, type CatalogCache, type Representation } from './catalog.cache.ts';
import { getProduct } from './catalog.service.ts';

const productParams = z.object({ id: z.string().min(1).max(64) });

/** Sends a cached body: 304 when the client has it, else compressed as the client allows. */
async function sendRepresentation(request: FastifyRequest, reply: FastifyReply, representation: Representation) {
  void reply.header('cache-control', 'no-cache').header('etag', representation.etag).header('vary', 'accept-encoding');
  if (etagMatches(request.headers['if-none-match'], representation.etag)) return reply.code(304).send();
  void reply.type('application/json; charset=utf-8');
  const encoding = representation.body.length >= COMPRESS_THRESHOLD ? preferredEncoding(request.headers['accept-encoding']) : 'identity';
  if (encoding === 'identity') return reply.send(representation.body);
  return reply.header('content-encoding', encoding).send(await representation.encoded(encoding));
}

/** Page data for the shop and product pages (GET, served from the catalogue cache with ETags). */
export async function catalogRoutes(
  app: FastifyInstance,
  options: { db: Db; cache: CatalogCache; resolveCaller: (request: FastifyRequest) => Promise<Caller | null> },
) {
  // These bodies are compressed once, in the cache: the per-response compress hook is off.
  const cached = { compress: false } as const;

  app.get('/api/products', cached, async (request, reply) => {
    const snapshot = await options.cache.snapshot();
    return sendRepresentation(request, reply, snapshot.list);
  });

  app.get('/api/products/:id', cached, async (request, reply) => {
    const parsed = productParams.safeParse(request.params);
    // An id that cannot exist is simply not found, like an unknown one.
    if (!parsed.success) throw new AppError('not-found', RELEASE_MESSAGES.notFound);
    const { id } = parsed.data;
    // An active product reads the same for everyone, so it comes from the cache.
    const active = (await options.cache.snapshot()).product(id);
    if (active) return sendRepresentation(request, reply, active);
    // Only admins see inactive products, and that answer is theirs alone.
    const caller = await options.resolveCaller(request);
    if (!caller?.isAdmin) throw new AppError('not-found', RELEASE_MESSAGES.notFound);
    void reply.header('cache-control', 'private, no-cache');
    return { product: await getProduct(options.db, id, { includeInactive: true }) };
  });
}
