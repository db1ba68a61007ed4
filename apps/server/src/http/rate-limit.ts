import { sql } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { AppError } from '../errors.ts';

/**
 * A fixed-window limit counted in Postgres with one atomic upsert, so it holds across
 * any number of server processes.
 */
export async function hitRateLimit(db: Db, key: string, max: number, windowSeconds: number): Promise<void> {
  const result = await db.execute(sql`
    INSERT INTO rate_limit_window AS w (key, count, window_start) VALUES (${key}, 1, now())
    ON CONFLICT (key) DO UPDATE SET
      count = CASE WHEN w.window_start < now() - make_interval(secs => ${windowSeconds}) THEN 1 ELSE w.count + 1 END,
      window_start = CASE WHEN w.window_start < now() - make_interval(secs => ${windowSeconds}) THEN now() ELSE w.window_start END
    RETURNING count`);
  const count = (result.rows[0] as { count: number }).count;
  if (count > max) throw new AppError('resource-exhausted', 'Too many attempts. Please wait a minute and try again.');
}
