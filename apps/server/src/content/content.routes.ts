import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Config } from '../config.ts';
import type { Db } from '../db/client.ts';
import { getPage } from './content.service.ts';

const pageParams = z.object({ slug: z.string().regex(/^[a-z0-9-]{1,40}$/, 'unknown page') });

export async function contentRoutes(app: FastifyInstance, options: { db: Db; config: Config }) {
  app.get('/api/pages/:slug', async (request, reply) => {
    const { slug } = pageParams.parse(request.params);
    void reply.header('cache-control', 'no-cache');
    return getPage(options.db, slug);
  });

  app.get('/api/site', async (_request, reply) => {
    void reply.header('cache-control', 'no-cache');
    return { contactEmail: options.config.CONTACT_EMAIL };
  });
}
