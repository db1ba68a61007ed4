import { sql } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { AppError } from '../errors.ts';

export const RATE_LIMIT_MESSAGE = 'Too many attempts. Please wait a minute and try again.';

/**
 * A fixed-window limit counted in Postgres with one atomic upsert, so it holds across
 * any number of server processes.
 */
export async function hitRateLimit(db: Db, key: string, max: number, windowSeconds: number): Promise<void> {
  if ((await countHit(db, key, windowSeconds)) > max) throw new AppError('resource-exhausted', RATE_LIMIT_MESSAGE);
}

/** Counts one hit of the key in its window; the count so far, this one included. */
export async function countHit(db: Db, key: string, windowSeconds: number): Promise<number> {
  const result = await db.execute(sql`
    INSERT INTO rate_limit_window AS w (key, count, window_start) VALUES (${key}, 1, now())
    ON CONFLICT (key) DO UPDATE SET
      count = CASE WHEN w.window_start < now() - make_interval(secs => ${windowSeconds}) THEN 1 ELSE w.count + 1 END,
      window_start = CASE WHEN w.window_start < now() - make_interval(secs => ${windowSeconds}) THEN now() ELSE w.window_start END
    RETURNING count`);
  return (result.rows[0] as { count: number }).count;
}

/** Takes back one hit that turned out not to count (for example a discount code that applied). */
export async function giveBackHit(db: Db, keys: readonly string[]): Promise<void> {
  if (keys.length === 0) return;
  await db.execute(
    sql`UPDATE rate_limit_window SET count = greatest(count - 1, 0) WHERE key IN (${sql.join(
      keys.map((key) => sql`${key}`),
      sql`, `,
    )})`,
  );
}
