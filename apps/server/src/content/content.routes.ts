import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Config } from '../config.ts';
import type { Db } from '../db/client.ts';
import { getContactEmail, getPage } from './content.service.ts';

const pageParams = z.object({ slug: z.string().regex(/^[a-z0-9-]{1,40}$/, 'unknown page') });

export async function contentRoutes(app: FastifyInstance, options: { db: Db; config: Config }) {
  app.get('/api/pages/:slug', async (request, reply) => {
    const { slug } = pageParams.parse(request.params);
    void reply.header('cache-control', 'no-cache');
    return getPage(options.db, slug);
  });

  app.get('/api/site', async (_request, reply) => {
    void reply.header('cache-control', 'no-cache');
    // The signup form checks the blocked domains in the same order as the server (issue 17).
    // The Contact page's address: set in the console (issue 18), else CONTACT_EMAIL.
    const contactEmail = await getContactEmail(options.db, options.config.CONTACT_EMAIL);
    return { contactEmail, blockedEmailDomains: options.config.BLOCKED_EMAIL_DOMAINS };
  });
}
