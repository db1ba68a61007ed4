import { z } from 'zod';

/**
 * One contract per callable function (decision 025): who may call it, what it accepts
 * and what it answers. The server validates inputs with `input`, its handlers' return
 * types are checked against `output` at compile time, and the sdk's client is typed by
 * function name from the same table. Outputs are not parsed at run time.
 *
 * The web imports these modules with `import type` only: zod stays out of its first load
 * (decision 016).
 */

export type Access = 'public' | 'signed-in' | 'admin';

/**
 * A function on its way out (decision 048): it keeps working, unchanged, for at least the
 * notice period after `since`, and the OpenAPI document marks it `deprecated: true`.
 */
export interface Deprecation {
  /** The API version (API_VERSION) that deprecated it. */
  since: string;
  /** The date (YYYY-MM-DD) it was deprecated: the `Deprecation` header of its answers (RFC 9745). */
  on: string;
  /** The date (YYYY-MM-DD) from which it may be removed, at least 180 days after `on`: the `Sunset` header (RFC 8594). */
  removeAfter: string;
  /** What to call instead, in a sentence. */
  instead: string;
}

export interface FunctionContract<Input extends z.ZodType = z.ZodType, Output extends z.ZodType = z.ZodType, A extends Access = Access> {
  access: A;
  input: Input;
  output: Output;
  deprecated?: Deprecation;
}

export function defineContract<Input extends z.ZodType, Output extends z.ZodType, A extends Access>(
  contract: FunctionContract<Input, Output, A>,
): FunctionContract<Input, Output, A> {
  return contract;
}

/**
 * An optional value that may also arrive as null: the Firebase SDK sends `null` for a
 * field left undefined (issue 19). Null reads as absent; a value is checked by `schema`
 * with its own messages.
 */
export function optionalNullable<T extends z.ZodType>(schema: T) {
  return schema
    .nullish()
    .transform((value): z.output<T> | undefined => value ?? undefined)
    .optional();
}

/** Like optionalNullable, with the value used when it is absent or null. */
export function nullableDefault<T extends z.ZodType>(schema: T, fallback: z.output<T>) {
  return schema.nullish().transform((value): z.output<T> => value ?? fallback);
}

/** A function without arguments: `{"data": null}` (what the SDKs send), `{}` or no value. */
export const noInput = z.null().or(z.object({}).strict()).optional();

/** `{ "ok": true }`: the answer of a change that returns nothing else. */
export const okOutput = z.object({ ok: z.literal(true) });
