import type pg from 'pg';

/**
 * A fingerprint of every table of the shop: its row count and an md5 of its rows in
 * a fixed order. Two equal snapshots mean no row was added, removed or changed.
 */
export type Snapshot = Record<string, { rows: number; md5: string }>;

export async function snapshotTables(pool: pg.Pool, { schemas = ['public'] }: { schemas?: string[] } = {}): Promise<Snapshot> {
  const tables = await pool.query<{ name: string }>(
    `SELECT quote_ident(n.nspname) || '.' || quote_ident(c.relname) AS name
     FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = ANY($1) AND c.relkind IN ('r', 'p') AND NOT c.relispartition ORDER BY 1`,
    [schemas],
  );
  const snapshot: Snapshot = {};
  for (const { name } of tables.rows) {
    const { rows } = await pool.query<{ rows: number; md5: string }>(
      `SELECT count(*)::int AS rows, md5(coalesce(string_agg(t::text, E'\\n' ORDER BY t::text), '')) AS md5 FROM ${name} t`,
    );
    snapshot[name] = rows[0]!;
  }
  return snapshot;
}

/** The tables whose rows differ between two snapshots. */
export function changedTables(before: Snapshot, after: Snapshot, ignore: string[] = []): string[] {
  const names = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...names].filter((name) => !ignore.includes(name) && JSON.stringify(before[name]) !== JSON.stringify(after[name])).sort();
}
