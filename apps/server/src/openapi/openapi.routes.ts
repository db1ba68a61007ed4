import type { FastifyInstance } from 'fastify';
import type { OpenApiDocument } from '@storefront/domain/openapi.ts';
import { referencePage } from './openapi.page.ts';

/** The document and its reference page, rendered once: they change only with a new build. */
export async function openapiRoutes(app: FastifyInstance, options: { document: OpenApiDocument }) {
  const json = JSON.stringify(options.document);
  const page = referencePage(options.document);
  app.get('/api/openapi.json', async (_request, reply) => reply.header('cache-control', 'no-cache').type('application/json; charset=utf-8').send(json));
  app.get('/api/docs', async (_request, reply) => reply.header('cache-control', 'no-cache').type('text/html; charset=utf-8').send(page));
}
