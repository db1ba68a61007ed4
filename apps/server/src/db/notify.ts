import type pg from 'pg';

/**
 * The channel every change is announced on (pg_notify in the transaction that makes it), so
 * each server process hears it once committed. The live area publishes and listens on it;
 * the database's own tools (a restore) announce through it without knowing that area.
 */
export const LIVE_CHANNEL = 'storefront_live';

/** Announces on LIVE_CHANNEL that these topics changed, in the client's open transaction. */
export async function announceChanged(client: pg.ClientBase, topics: readonly string[]): Promise<void> {
  for (const topic of topics) await client.query('SELECT pg_notify($1, $2)', [LIVE_CHANNEL, JSON.stringify({ topic })]);
}
