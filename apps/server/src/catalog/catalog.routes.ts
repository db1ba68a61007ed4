import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { Db } from '../db/client.ts';
import type { Caller } from '../functions/registry.ts';
import { RELEASE_MESSAGES } from '@storefront/domain/catalog.ts';
import { AppError } from '../http/errors.ts';
import { getProduct, listActiveProducts } from './catalog.service.ts';

const productParams = z.object({ id: z.string().min(1).max(64) });

/** Page data for the shop and product pages (GET, cacheable with ETags). */
export async function catalogRoutes(
  app: FastifyInstance,
  options: { db: Db; resolveCaller: (request: FastifyRequest) => Promise<Caller | null> },
) {
  app.get('/api/products', async (_request, reply) => {
    void reply.header('cache-control', 'no-cache');
    return { products: await listActiveProducts(options.db) };
  });

  app.get('/api/products/:id', async (request, reply) => {
    const parsed = productParams.safeParse(request.params);
    // An id that cannot exist is simply not found, like an unknown one.
    if (!parsed.success) throw new AppError('not-found', RELEASE_MESSAGES.notFound);
    const { id } = parsed.data;
    const caller = await options.resolveCaller(request);
    void reply.header('cache-control', caller ? 'private, no-cache' : 'no-cache');
    return { product: await getProduct(options.db, id, { includeInactive: Boolean(caller?.isAdmin) }) };
  });
}
