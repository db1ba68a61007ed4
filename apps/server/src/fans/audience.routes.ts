import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AUDIENCE_EXPORT_COLUMNS, AUDIENCE_IMPORT_LIMITS, AUDIENCE_MESSAGES } from '@storefront/domain/audience.ts';
import { csvRow } from '@storefront/domain/order-desk.ts';
import type { Db } from '../db/client.ts';
import type { Caller } from '../functions/registry.ts';
import { errorBody } from '../http/error-handler.ts';
import { readImportFile } from './audience-import.ts';
import { audienceExportRows, recordImport } from './audience.service.ts';

export interface AudienceRoutesOptions {
  db: Db;
  resolveCaller: (request: FastifyRequest) => Promise<Caller | null>;
}

/**
 * The label's list as files (issue 37 part 6, decision 078), for the shop's admins only:
 * GET /api/admin/audience.csv, the consenting fans, streamed a page at a time with the packing
 * list's cell writer (RFC 4180, formula cells defused); POST /api/admin/audience/import, a CSV of
 * fans who consented elsewhere (text/csv, up to 20 MB and 100,000 rows), read as it arrives,
 * answered with its report (added, merged, refused with reasons).
 */
export async function audienceRoutes(app: FastifyInstance, options: AudienceRoutesOptions) {
  /** Who may not use these files, and the answer they get; null for an admin. */
  const refusalOf = (caller: Caller | null) =>
    !caller
      ? { status: 401, body: errorBody('unauthenticated', 'Please sign in first.') }
      : !caller.isAdmin
        ? { status: 403, body: errorBody('permission-denied', 'Only the shop’s admins can export or import the audience.') }
        : null;

  app.get('/api/admin/audience.csv', async (request, reply) => {
    const refusal = refusalOf(await options.resolveCaller(request));
    if (refusal) return reply.status(refusal.status).send(refusal.body);
    async function* lines() {
      // A byte order mark: spreadsheet programs then read UTF-8 names correctly (as the packing list).
      yield `\uFEFF${csvRow([...AUDIENCE_EXPORT_COLUMNS])}`;
      for await (const row of audienceExportRows(options.db)) yield csvRow([row.email, row.name, row.country, row.consentedAt, row.source, row.follows]);
    }
    const day = new Date().toISOString().slice(0, 10);
    return reply
      .header('content-type', 'text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="audience-${day}.csv"`)
      .header('cache-control', 'no-store')
      .send(Readable.from(lines()));
  });

  // The body is read here, as it arrives (never whole in memory as a string), not by a parser.
  app.addContentTypeParser(['text/csv', 'application/csv', 'application/vnd.ms-excel'], (_request, payload, done) => done(null, payload));
  app.post('/api/admin/audience/import', async (request, reply) => {
    const caller = await options.resolveCaller(request);
    const refusal = refusalOf(caller);
    if (refusal || !caller) return reply.status(refusal?.status ?? 401).send(refusal?.body);
    const body = request.body;
    if (!body || typeof (body as AsyncIterable<Uint8Array>)[Symbol.asyncIterator] !== 'function') {
      return reply.status(400).send(errorBody('invalid-argument', AUDIENCE_MESSAGES.notCsv));
    }
    const declared = Number(request.headers['content-length'] ?? 0);
    if (declared > AUDIENCE_IMPORT_LIMITS.maxBytes) return reply.status(413).send(errorBody('invalid-argument', AUDIENCE_MESSAGES.tooBig));
    const { report, rows } = await readImportFile(body as AsyncIterable<Uint8Array>);
    await recordImport(options.db, rows, report, { userId: caller.userId });
    return { data: report };
  });
}
