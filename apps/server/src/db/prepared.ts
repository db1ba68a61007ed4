import { sql, type Column } from 'drizzle-orm';
import type { Db } from './client.ts';

const built = new WeakMap<Db, Map<string, unknown>>();

/**
 * A named prepared statement, built once per database handle: each pooled connection
 * parses and plans it once (decision 015). `name` must stand for one SQL text: the
 * statement's shape may not depend on the call, only its placeholders' values.
 */
export function prepared<T>(db: Db, name: string, build: (db: Db) => T): T {
  let statements = built.get(db);
  if (!statements) built.set(db, (statements = new Map()));
  if (!statements.has(name)) statements.set(name, build(db));
  return statements.get(name) as T;
}

/**
 * A column's bare name for raw SQL where Postgres wants it unqualified (an UPDATE's SET, an
 * INSERT's column list, a CTE's output): named through the schema, so renaming the column
 * breaks the build, not production. Elsewhere write `${table.column}` itself.
 */
export function columnName(column: Column) {
  return sql.identifier(column.name);
}
