import { and, asc, desc, eq, gt, lt, or, type AnyColumn, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import type { ListQuery } from '@storefront/domain/field-path.ts';
import { AppError } from '../errors.ts';

/**
 * Turns a checked list query (ordering, limit, limitToLast, cursors) into Drizzle
 * clauses over the columns a list allows. Cursors are keyset conditions, so a page
 * costs the same however deep it is.
 */
export interface ListPlan {
  where: SQL | undefined;
  orderBy: SQL[];
  limit: number;
  /** limitToLast reads the order backwards; the rows must then be reversed. */
  reversed: boolean;
}

type Direction = 'asc' | 'desc';

function keyset(columns: AnyColumn[], directions: Direction[], values: unknown[], after: boolean): SQL | undefined {
  const branches: SQL[] = [];
  for (let i = 0; i < values.length; i += 1) {
    const equalities = values.slice(0, i).map((value, j) => eq(columns[j]!, value));
    const forward = (directions[i] === 'asc') === after;
    const step = forward ? gt(columns[i]!, values[i]) : lt(columns[i]!, values[i]);
    branches.push(and(...equalities, step)!);
  }
  return branches.length > 0 ? or(...branches) : undefined;
}

const INT4_MAX = 2_147_483_647;

/** Whether Postgres will take `value` for `column`; a mismatch would otherwise be a 500. */
function fitsColumn(column: AnyColumn, value: unknown): boolean {
  switch (column.columnType) {
    case 'PgInteger':
    case 'PgSerial':
      return Number.isInteger(value) && Math.abs(value as number) <= INT4_MAX;
    case 'PgDateString':
      // Postgres has no year 0 (1 BC): '0000-01-01' is well formed but out of its range.
      return z.iso.date().safeParse(value).success && !(value as string).startsWith('0000');
    case 'PgText':
    case 'PgVarchar':
      return typeof value === 'string' && !value.includes('\u0000');
    default:
      return true; // a type not checked here yet: Postgres has the last word
  }
}

export function planListQuery(query: ListQuery, columns: Record<string, AnyColumn>, defaults: { orderBy: { field: string; direction: Direction }[]; limit: number }): ListPlan {
  const ordering = query.orderBy.length > 0 ? query.orderBy : defaults.orderBy;
  const orderColumns = ordering.map(({ field }) => {
    const column = Object.hasOwn(columns, field) ? columns[field] : undefined;
    if (!column) {
      throw new AppError('invalid-argument', `Cannot order by ${field}. Allowed: ${Object.keys(columns).join(', ')}.`);
    }
    return column;
  });
  for (const [name, cursor] of [
    ['startAfter', query.startAfter],
    ['endBefore', query.endBefore],
  ] as const) {
    cursor?.forEach((value, i) => {
      if (!fitsColumn(orderColumns[i]!, value)) {
        throw new AppError('invalid-argument', `${name}: ${JSON.stringify(value)} is not a valid ${ordering[i]!.field}.`);
      }
    });
  }
  const directions = ordering.map(({ direction }) => direction);
  const reversed = query.limitToLast !== undefined;
  const where = and(
    query.startAfter ? keyset(orderColumns, directions, query.startAfter, true) : undefined,
    query.endBefore ? keyset(orderColumns, directions, query.endBefore, false) : undefined,
  );
  const orderBy = orderColumns.map((column, i) => {
    const ascending = (directions[i] === 'asc') !== reversed;
    return ascending ? asc(column) : desc(column);
  });
  return { where, orderBy, limit: query.limitToLast ?? query.limit ?? defaults.limit, reversed };
}
