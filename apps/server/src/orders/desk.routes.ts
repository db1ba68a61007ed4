import { partsText } from '@storefront/domain/bundles.ts';
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { csvRow, ORDER_FILTERS, PACKING_LIST_COLUMNS } from '@storefront/domain/order-desk.ts';
import type { Db } from '../db/client.ts';
import type { Caller } from '../functions/registry.ts';
import { errorBody } from '../http/error-handler.ts';
import { packingListRows } from './desk.service.ts';
import { centsToDecimal } from '@storefront/domain/money.ts';

const csvQuery = z.object({ status: z.enum(ORDER_FILTERS).default('all'), q: z.string().max(100).optional() }).strict();

const statusOf = (order: { orderFulfilled: boolean; refundStatus: string | null }) =>
  order.refundStatus === 'refunded' ? 'Refunded' : order.refundStatus === 'partially_refunded' ? 'Partially refunded' : order.orderFulfilled ? 'Shipped' : 'Unfulfilled';

/**
 * The packing list (issue 16.3): one CSV row per line item with the shipping address, for the
 * orders the desk's filter and search select. Streamed a page at a time, so a big export
 * never sits in memory; every cell RFC 4180-quoted and formula-injection safe.
 */
export async function deskRoutes(app: FastifyInstance, options: { db: Db; resolveCaller: (request: FastifyRequest) => Promise<Caller | null> }) {
  app.get('/api/admin/packing-list', async (request, reply) => {
    const caller = await options.resolveCaller(request);
    if (!caller) return reply.status(401).send(errorBody('unauthenticated', 'Please sign in first.'));
    if (!caller.isAdmin) return reply.status(403).send(errorBody('permission-denied', 'Only the shop’s admins can export orders.'));
    const query = csvQuery.safeParse(request.query);
    if (!query.success)
      return reply.status(400).send(errorBody('invalid-argument', 'Choose a status of unfulfilled, shipped, refunded or all, and a search of at most 100 characters.'));
    async function* lines() {
      // A byte order mark: spreadsheet programs then read the UTF-8 names and addresses correctly.
      yield `\uFEFF${csvRow([...PACKING_LIST_COLUMNS])}`;
      for await (const { order, item } of packingListRows(options.db, query.data!)) {
        const address = order.shipping;
        yield csvRow([
          order.id,
          order.createdAt.toISOString(),
          statusOf(order),
          order.contact.name,
          order.contact.email,
          order.contact.phone,
          address.name,
          address.line1,
          address.line2,
          address.city,
          address.state,
          address.postal_code,
          address.country,
          item.productId,
          item.name,
          item.qty,
          centsToDecimal(item.unitCents),
          order.discountCode ?? '',
          item.components ? partsText(item.components) : '',
        ]);
      }
    }
    const day = new Date().toISOString().slice(0, 10);
    return reply
      .header('content-type', 'text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="packing-list-${query.data.status}-${day}.csv"`)
      .header('cache-control', 'no-store')
      .send(Readable.from(lines()));
  });
}
