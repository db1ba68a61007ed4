import { z } from 'zod';
import { nullableDefault, optionalNullable } from './contracts/define.ts';
import { DATA_ACCESS_MESSAGES } from './messages.ts';

/**
 * Field paths and list queries (spec section 5, "Database client"): the rules a
 * field path must follow and the shape of a list query (ordering, limits, cursors).
 */
const FORBIDDEN_CHARACTERS = /[~*/[\]]/;

/** Returns why a field path is invalid, or undefined when it is valid. */
export function fieldPathProblem(path: string): string | undefined {
  if (path.length === 0) return DATA_ACCESS_MESSAGES.emptyFieldPath;
  if (FORBIDDEN_CHARACTERS.test(path)) {
    return `Invalid field path (${path}). Paths must not contain '~', '*', '/', '[', or ']'.`;
  }
  if (path.startsWith('.') || path.endsWith('.') || path.includes('..')) {
    return `Invalid field path (${path}). Paths must not start or end with '.', or contain '..'.`;
  }
  return undefined;
}

export const fieldPathSchema = z.string().superRefine((path, ctx) => {
  const problem = fieldPathProblem(path);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

const cursorValue = z.union([z.string().max(200), z.number().finite(), z.boolean()]);

export const MAX_PAGE_SIZE = 100;

export const listQuerySchema = z
  .object({
    // Optional values may also be null: the Firebase SDK sends null for an undefined field.
    orderBy: nullableDefault(z.array(z.object({ field: fieldPathSchema, direction: nullableDefault(z.enum(['asc', 'desc']), 'asc') })).max(4), []),
    limit: optionalNullable(z.number().int().min(1).max(MAX_PAGE_SIZE)),
    limitToLast: optionalNullable(z.number().int().min(1).max(MAX_PAGE_SIZE)),
    startAfter: optionalNullable(z.array(cursorValue).max(4)),
    endBefore: optionalNullable(z.array(cursorValue).max(4)),
  })
  .strict()
  .superRefine((query, ctx) => {
    if (query.limitToLast !== undefined && query.orderBy.length === 0) {
      ctx.addIssue({
        code: 'custom',
        path: ['limitToLast'],
        message: DATA_ACCESS_MESSAGES.limitToLastNeedsOrder,
      });
    }
    if (query.limit !== undefined && query.limitToLast !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['limit'], message: 'Use either limit or limitToLast, not both.' });
    }
    for (const [name, cursor] of [
      ['startAfter', query.startAfter],
      ['endBefore', query.endBefore],
    ] as const) {
      if (cursor && cursor.length > query.orderBy.length) {
        ctx.addIssue({ code: 'custom', path: [name], message: `Too many values in ${name}: one per orderBy field.` });
      }
    }
  });

export type ListQuery = z.infer<typeof listQuerySchema>;
export type ListQueryInput = z.input<typeof listQuerySchema>;
