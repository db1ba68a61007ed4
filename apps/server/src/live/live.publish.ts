import { sql, type SQL } from 'drizzle-orm';
import { beforeClose, type Db } from '../db/client.ts';
import { LIVE_CHANNEL } from '../db/notify.ts';
import { onCommit, type Tx } from '../db/transaction.ts';

/**
 * Live topics (spec section 7, "Live" reads). A change is announced with pg_notify after
 * the transaction that makes it has committed (decision 067): PostgreSQL serialises the
 * commits of every transaction that notified on one global lock, so a transaction holding
 * a hot row (a drop's variant) must not notify. runTransaction keeps what its function
 * announced and hands it over on commit (nothing on a rollback); each process publishes
 * what it collected once per short tick, one pg_notify per product, user and topic, in one
 * statement of its own. Listeners in every server process hear of it once it is committed.
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
  /**
   * A started drop's revealed seed and pre-queue size (topic `drop`): a page computes its own
   * position from them and its entry number (decision 073), so nobody asks at the start.
   */
  seed?: string;
  preQueueCount?: number;
  /** A session's new expiry, in ms since the epoch (SESSION_EXPIRY). */
  expiresAt?: number;
  /**
   * A 'products' event of a stock change (decision 067): the units left of each of the
   * product's variants (null: unlimited), read when announced, so a page applies them to
   * what it shows instead of refetching. Absent: refetch (any other change, a bundle).
   */
  stock?: Record<string, number | null>;
}

/** The `pg_notify` call announcing an event, for a statement that runs anyway (no extra round trip). */
export function liveNotification(event: LiveEvent): SQL {
  return sql`pg_notify(${LIVE_CHANNEL}, ${JSON.stringify(event)})`;
}

/**
 * Announces the events: after the commit when `db` is a transaction of runTransaction
 * (decision 067), at once otherwise (a statement of its own, or a transaction opened some
 * other way, where they are said in it and heard on its commit).
 */
export async function publishLive(db: Db | Tx, ...events: [LiveEvent, ...LiveEvent[]]): Promise<void> {
  if (announceAfterCommit(db, events)) return;
  await db.execute(sql`SELECT ${sql.join(events.map(liveNotification), sql`, `)}`);
}

/**
 * Announces, after the commit, that these variants' stock changed: one 'products' event per
 * product carrying its variants' units left as they are when it is said (so the last one
 * said is never older than the last commit), and one plain event per bundle that takes any
 * of them (its shown stock is its parts': the page refetches it).
 */
export async function publishStock(db: Db | Tx, variantIds: readonly string[]): Promise<void> {
  if (variantIds.length === 0) return;
  const pending = pendingOf(db);
  if (pending) {
    for (const id of variantIds) pending.variants.add(id);
    return;
  }
  await db.execute(sql`SELECT count(*) FROM (${stockNotifications(sql`${sql.param([...variantIds])}::text[]`)}) AS said`);
}

// ---- After the commit (decision 067) -------------------------------------------------------

/** What one transaction announced, kept until it commits. */
interface Pending {
  events: LiveEvent[];
  variants: Set<string>;
}

const pendingByTx = new WeakMap<object, Pending>();

/** What `db` (a runTransaction transaction) announces until its commit; undefined for anything else. */
function pendingOf(db: Db | Tx): Pending | undefined {
  let pending = pendingByTx.get(db);
  if (pending) return pending;
  const created: Pending = { events: [], variants: new Set() };
  // runTransaction, once the transaction committed: what it announced goes out with this process's next tick.
  if (!onCommit(db, (committedOn) => announcerOf(committedOn).add(created))) return undefined;
  pendingByTx.set(db, created);
  pending = created;
  return pending;
}

function announceAfterCommit(db: Db | Tx, events: LiveEvent[]): boolean {
  const pending = pendingOf(db);
  if (!pending) return false;
  pending.events.push(...events);
  return true;
}

/** How long a process collects announcements before saying them (one statement per tick). */
export const LIVE_TICK_MS = 20;

/** The statement's part saying the stock events of the variants in `variantIds` (a text[]). */
function stockNotifications(variantIds: SQL): SQL {
  return sql`
    SELECT pg_notify(${LIVE_CHANNEL}, (jsonb_build_object('topic', 'products', 'id', p.id)
             || CASE WHEN p.bundle OR NOT p.is_active THEN '{}'::jsonb
                     ELSE jsonb_build_object('stock', (SELECT jsonb_object_agg(v.id, v.stock) FROM product_variant v WHERE v.product_id = p.id)) END)::text)
    FROM product p
    WHERE p.id IN (SELECT product_id FROM product_variant WHERE id = ANY(${variantIds})
                   UNION SELECT bv.product_id FROM bundle_component bc JOIN product_variant bv ON bv.id = bc.bundle_variant_id
                          WHERE bc.component_variant_id = ANY(${variantIds}))`;
}

/** The key an event is coalesced under: one per topic, user and id in a tick. */
function keyOf(event: LiveEvent): string {
  return JSON.stringify([event.topic, event.userId ?? null, event.id ?? null, event.expiresAt ?? null]);
}

class Announcer {
  private events = new Map<string, LiveEvent>();
  private variants = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> = Promise.resolve();

  private readonly db: Db;

  constructor(db: Db) {
    this.db = db;
  }

  add(pending: Pending): void {
    for (const event of pending.events) this.events.set(keyOf(event), event);
    for (const id of pending.variants) this.variants.add(id);
    this.timer ??= setTimeout(() => void this.flush(), LIVE_TICK_MS);
  }

  /** Says everything collected, in one statement (one commit, so one turn of the notify lock). */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const events = [...this.events.values()];
    const variants = [...this.variants];
    this.events.clear();
    this.variants.clear();
    // A closed pool (a process shutting down): nothing can be said any more.
    if ((events.length === 0 && variants.length === 0) || this.db.$client.ending || this.db.$client.ended) return this.running;
    const texts = events.map((event) => JSON.stringify(event));
    this.running = this.running
      .then(() =>
        this.db.execute(sql`
          WITH plain AS (SELECT pg_notify(${LIVE_CHANNEL}, payload) FROM unnest(${sql.param(texts)}::text[]) AS payload),
               stock AS (${stockNotifications(sql`${sql.param(variants)}::text[]`)})
          SELECT (SELECT count(*) FROM plain) + (SELECT count(*) FROM stock) AS said`),
      )
      .then(
        () => undefined,
        // Committed changes not told: the pages show them at their next refetch. Said, never thrown.
        (error: unknown) => console.warn('Live announcements could not be published:', error),
      );
    return this.running;
  }
}

const announcers = new WeakMap<Db, Announcer>();

function announcerOf(db: Db): Announcer {
  let announcer = announcers.get(db);
  if (!announcer) {
    const created = new Announcer(db);
    announcers.set(db, created);
    beforeClose(db, () => created.flush());
    announcer = created;
  }
  return announcer;
}

/** Says at once what this process collected for `db` (before its pool closes). */
export function flushAnnouncements(db: Db): Promise<void> {
  return announcers.get(db)?.flush() ?? Promise.resolve();
}
