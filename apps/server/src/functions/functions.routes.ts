import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { Config } from '../config.ts';
import type { Db } from '../db/client.ts';
import { requireClientAddress } from '../http/client-address.ts';
import { AppError } from '../http/errors.ts';
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

export async function functionsRoutes(app: FastifyInstance, options: FunctionsRoutesOptions) {
  const byName = new Map(options.functions.map((fn) => [fn.name, fn]));
  if (byName.size !== options.functions.length) throw new Error('Two callable functions share a name.');

  app.post<{ Params: { name: string } }>('/fn/:name', async (request) => {
    const fn = byName.get(request.params.name);
    if (!fn) throw new AppError('not-found', `Function ${request.params.name} does not exist.`);
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
