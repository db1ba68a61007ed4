import type { FastifyBaseLogger } from 'fastify';
import type { z } from 'zod';
import type { Config } from '../config.ts';
import type { Db } from '../db/client.ts';

/** Who is calling. Filled by the accounts area; null for anonymous callers. */
export interface Caller {
  userId: string;
  isAdmin: boolean;
}

export interface CallContext {
  db: Db;
  config: Config;
  caller: Caller | null;
  /** The client's address (decision 017), for rate limits: use rateLimitSubject(ip) as the key. */
  ip: string;
  log: FastifyBaseLogger;
  /** The shop's origin: PUBLIC_URL's, or (without it) the origin the request came to. */
  origin?: string;
}

export type Access = 'public' | 'signed-in' | 'admin';

/** A callable function: `POST /fn/<name>` with `{"data": input}`, answering `{"data": output}`. */
export interface CallableFunction<Schema extends z.ZodType = z.ZodType, Output = unknown> {
  name: string;
  access: Access;
  input: Schema;
  handler(input: z.infer<Schema>, context: CallContext): Promise<Output>;
}

export function defineFunction<Schema extends z.ZodType, Output>(
  definition: CallableFunction<Schema, Output>,
): CallableFunction<Schema, Output> {
  return definition;
}
