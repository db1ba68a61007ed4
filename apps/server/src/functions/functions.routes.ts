import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { Config } from '../config.ts';
import type { Db } from '../db/client.ts';
import { requireClientAddress } from '../http/client-address.ts';
import { AppError } from '../errors.ts';
import type { Deprecation } from '@storefront/domain/contracts/define.ts';
import type { CallableFunction, Caller } from './registry.ts';

export interface FunctionsRoutesOptions {
  db: Db;
  config: Config;
  functions: CallableFunction[];
  resolveCaller: (request: FastifyRequest) => Promise<Caller | null>;
}

// z.object would word a missing `data` as "expected nonoptional": say what is wrong instead.
const envelope = z.custom<{ data: unknown }>((body) => typeof body === 'object' && body !== null && !Array.isArray(body) && 'data' in body, {
  error: 'The request body must be a JSON object with a data field.',
});

/** RFC 9745's `Deprecation: @<seconds>` and RFC 8594's `Sunset: <HTTP-date>` (decision 048). */
export function deprecationHeaders(deprecated: Deprecation): { deprecation: string; sunset: string } {
  const at = (date: string) => new Date(`${date}T00:00:00Z`);
  return { deprecation: `@${Math.floor(at(deprecated.on).getTime() / 1000)}`, sunset: at(deprecated.removeAfter).toUTCString() };
}

export async function functionsRoutes(app: FastifyInstance, options: FunctionsRoutesOptions) {
  const byName = new Map(options.functions.map((fn) => [fn.name, fn]));
  if (byName.size !== options.functions.length) throw new Error('Two callable functions share a name.');
  const deprecations = new Map(options.functions.flatMap((fn) => (fn.deprecated ? [[fn.name, deprecationHeaders(fn.deprecated)] as const] : [])));

  app.post<{ Params: { name: string } }>('/fn/:name', async (request, reply) => {
    const fn = byName.get(request.params.name);
    if (!fn) throw new AppError('not-found', `Function ${request.params.name} does not exist.`);
    const deprecation = deprecations.get(fn.name);
    if (deprecation) void reply.headers(deprecation);
    const { data } = envelope.parse(request.body);

    const caller = await options.resolveCaller(request);
    if (fn.access !== 'public' && !caller) throw new AppError('unauthenticated', 'Please sign in first.');
    if (fn.access === 'admin' && !caller?.isAdmin) {
      throw new AppError('permission-denied', 'Only the label’s admins can do this.');
    }
    const input: unknown = fn.input.parse(data);
    const origin = options.config.PUBLIC_URL ? new URL(options.config.PUBLIC_URL).origin : `${request.protocol}://${request.host}`;
    const result = await fn.handler(input, { db: options.db, config: options.config, caller, ip: requireClientAddress(request), log: request.log, origin });
    return { data: result ?? null };
  });
}
