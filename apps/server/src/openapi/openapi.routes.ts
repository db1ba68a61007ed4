import type { FastifyInstance } from 'fastify';
import type { OpenApiDocument } from '@storefront/domain/openapi.ts';
import { referencePage } from './openapi.page.ts';

/** The document and its reference page, rendered once: they change only with a new build. */
export async function openapiRoutes(app: FastifyInstance, options: { document: OpenApiDocument }) {
  const json = JSON.stringify(options.document);
  const page = referencePage(options.document);
  // The same public bytes for every caller, read without credentials: any origin's tools may
  // read it (a browser sends no cookie with a `*` answer), unlike /fn and /v0 (decision 048).
  app.get('/api/openapi.json', async (_request, reply) =>
    reply.header('cache-control', 'no-cache').header('access-control-allow-origin', '*').type('application/json; charset=utf-8').send(json),
  );
  app.get('/api/docs', async (_request, reply) => reply.header('cache-control', 'no-cache').type('text/html; charset=utf-8').send(page));
}
