import type { FastifyBaseLogger } from 'fastify';
import type { z } from 'zod';
import type { Deprecation } from '@storefront/domain/contracts/define.ts';
import { functionContracts, type Access, type FunctionAccess, type FunctionName, type FunctionParsedInput } from '@storefront/domain/contracts/index.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/client.ts';

/** Who is calling. Filled by the accounts area; null for anonymous callers. */
export interface Caller {
  userId: string;
  isAdmin: boolean;
  /** The session the call came with (absent only in tests that build a caller by hand). */
  sessionId?: string;
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

/** The context a handler of that access level gets: signed-in and admin functions always have a caller. */
export type CallContextFor<A extends Access> = A extends 'public' ? CallContext : CallContext & { caller: Caller };

export type { Access };

/** A callable function: `POST /fn/<name>` with `{"data": input}`, answering `{"data": output}`. */
export interface CallableFunction {
  name: string;
  access: Access;
  input: z.ZodType;
  /** What it answers (the contract's output); absent for test functions outside the table. */
  output?: z.ZodType;
  /** The contract's deprecation (decision 048): its answers carry `Deprecation` and `Sunset`. */
  deprecated?: Deprecation;
  handler(input: unknown, context: CallContext): Promise<unknown>;
}

type Handler<N extends FunctionName> = (input: FunctionParsedInput<N>, context: CallContextFor<FunctionAccess<N>>) => Promise<z.input<(typeof functionContracts)[N]['output']>>;

/**
 * A function of the contract table (decision 025): its access and input schema come from
 * the contract, and the handler's return type is checked against the contract's output.
 */
export function defineFunction<N extends FunctionName>(name: N, handler: Handler<N>): CallableFunction {
  const contract = functionContracts[name];
  return {
    name,
    access: contract.access,
    input: contract.input,
    output: contract.output,
    ...(contract.deprecated ? { deprecated: contract.deprecated } : {}),
    handler: (input, context) => {
      // functions.routes.ts refuses a call without a caller before a non-public handler runs.
      if (contract.access !== 'public' && !context.caller) throw new Error(`${name} ran without a caller.`);
      return handler(input as FunctionParsedInput<N>, context as CallContextFor<FunctionAccess<N>>);
    },
  };
}

/** A function outside the contract table: only for tests of the protocol itself. */
export function defineTestFunction<Schema extends z.ZodType>(definition: {
  name: string;
  access: Access;
  input: Schema;
  deprecated?: Deprecation;
  handler(input: z.output<Schema>, context: CallContext): Promise<unknown>;
}): CallableFunction {
  return { ...definition, handler: (input, context) => definition.handler(input as z.output<Schema>, context) };
}
