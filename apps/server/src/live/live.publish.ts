import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { LIVE_CHANNEL } from '../db/notify.ts';
import type { Tx } from '../db/transaction.ts';

/**
 * Live topics (spec section 7, "Live" reads). A change is announced with pg_notify in
 * the transaction that makes it, so listeners hear of it only once it is committed,
 * in every server process.
 */
export { LIVE_CHANNEL };

export type LiveTopic =
  | { topic: 'products' }
  | { topic: 'profile'; userId: string }
  | { topic: 'wallet'; userId: string }
  | { topic: 'orders'; userId: string }
  | { topic: 'all-orders' }
  /** The content pages (Home, About, History, Contact, Privacy policy): everyone; id is the page's slug. */
  | { topic: 'content' }
  /** The console's activity and admins lists: admins only; said with every audit row. */
  | { topic: 'admin' }
  /** A drop's "now serving" and status (decision 066): everyone; id is the drop's id; once per admission batch. */
  | { topic: 'drop'; dropId: string };

/**
 * Said by the database itself (migration 0009, decision 020), never sent to a client: a
 * session ended (the server closes the streams it opened), or its expiry was brought
 * forward to `expiresAt` (they close then).
 */
export const SESSION_ENDED = 'session-ended';
export const SESSION_EXPIRY = 'session-expiry';
/**
 * Said by the database (migration 0024, decision 042), never sent to a client: what makes
 * the account `userId` an admin changed (role, email, verification); its streams close.
 */
export const ACCOUNT_CHANGED = 'account-changed';

/** The events for the server processes only. */
export const INTERNAL_TOPICS: ReadonlySet<string> = new Set([SESSION_ENDED, SESSION_EXPIRY, ACCOUNT_CHANGED]);

export interface LiveEvent {
  topic: LiveTopic['topic'] | typeof SESSION_ENDED | typeof SESSION_EXPIRY | typeof ACCOUNT_CHANGED;
  userId?: string;
  /** What changed, e.g. a product id; never private data (clients refetch). */
  id?: string;
  /** A drop's highest position admitted and its status (topic `drop`): fans' pages compute their place from them. */
  nowServing?: number;
  status?: string;
  /** A session's new expiry, in ms since the epoch (SESSION_EXPIRY). */
  expiresAt?: number;
}

/** The `pg_notify` call announcing an event, for a statement that runs anyway (no extra round trip). */
export function liveNotification(event: LiveEvent): SQL {
  return sql`pg_notify(${LIVE_CHANNEL}, ${JSON.stringify(event)})`;
}

/** Announces the events, all in one statement. */
export async function publishLive(db: Db | Tx, ...events: [LiveEvent, ...LiveEvent[]]): Promise<void> {
  await db.execute(sql`SELECT ${sql.join(events.map(liveNotification), sql`, `)}`);
}
