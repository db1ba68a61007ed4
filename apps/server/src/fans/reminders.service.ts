import { and, asc, eq, inArray, or, sql } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { audienceSettings, checkoutReminders, checkouts, dropItems, marketingConsents, orders, productVariants, users } from '../db/schema/index.ts';
import { runTransaction } from '../db/transaction.ts';
import { recordAudit, type Actor } from '../audit/audit.service.ts';
import type { JobQueue } from '../jobs/queue.ts';
import { signConsentLink, verifyConsentLink } from './consent-links.ts';
import { leaveLink, listUnsubscribeHeaders } from './list-unsubscribe.ts';
import { cartReminderMail } from './reminder.mail.ts';

/**
 * The reminder of a checkout left unpaid (issue 37 part 7, decision 078). Off by default; the
 * label turns it on with the hours after which it goes. A round (the job queue's
 * 'checkout-reminders', every minute, one instance at a time) looks at the checkouts made that
 * many hours ago (up to a day more) that never became paid and were never looked at: each is
 * claimed once (a `checkout_reminder` row, in the transaction that queues its mail) and is
 * reminded only when its buyer consents to marketing mail, bought nothing since, has no later
 * checkout, and none of its products is in a drop.
 */

/** How far back a round looks past the hours, in hours: a checkout older than that is never reminded (turning reminders on does not mail last month's carts). */
const LOOK_BACK_HOURS = 24;
/** An hour; the browser tests shorten it (CART_REMINDER_HOUR_MS, refused in production). */
export const HOUR_MS = 3_600_000;
const UNPAID = ['pending', 'expired', 'cancelled', 'failed'] as const;

export async function reminderSettings(db: Db): Promise<{ cartReminderHours: number | null }> {
  const [row] = await db.select({ hours: audienceSettings.cartReminderHours }).from(audienceSettings).where(eq(audienceSettings.id, 1));
  return { cartReminderHours: row?.hours ?? null };
}

export async function saveReminderSettings(db: Db, cartReminderHours: number | null, actor: Actor): Promise<{ cartReminderHours: number | null }> {
  await runTransaction(db, async (tx) => {
    const [before] = await tx.select({ hours: audienceSettings.cartReminderHours }).from(audienceSettings).where(eq(audienceSettings.id, 1));
    await tx
      .insert(audienceSettings)
      .values({ id: 1, cartReminderHours, updatedAt: new Date() })
      .onConflictDoUpdate({ target: audienceSettings.id, set: { cartReminderHours, updatedAt: new Date() } });
    await recordAudit(tx, {
      actor,
      action: 'audience.settings',
      targetType: 'audience',
      targetId: 'settings',
      before: { cartReminderHours: before?.hours ?? null },
      after: { cartReminderHours },
    });
  });
  return { cartReminderHours };
}

export interface ReminderDeps {
  db: Db;
  jobs: JobQueue;
  publicUrl: string;
  secret: string;
  /** How long an hour of the settings lasts (CART_REMINDER_HOUR_MS); an hour unless a test shortens it. */
  hourMs?: number;
}

export type ReminderVerdict = 'sent' | 'no-consent' | 'bought' | 'drop' | 'newer-checkout';

/** One round; what it decided for each checkout it claimed (tests read it). */
export async function remindUnpaidCheckouts(deps: ReminderDeps, now = new Date()): Promise<Map<string, ReminderVerdict>> {
  const verdicts = new Map<string, ReminderVerdict>();
  const { cartReminderHours: hours } = await reminderSettings(deps.db);
  if (hours === null) return verdicts;
  const hourMs = deps.hourMs ?? HOUR_MS;
  const due = new Date(now.getTime() - hours * hourMs);
  const oldest = new Date(due.getTime() - LOOK_BACK_HOURS * hourMs);
  await runTransaction(
    deps.db,
    async (tx) => {
      verdicts.clear();
      const locked = await tx.execute<{ locked: boolean }>(sql`SELECT pg_try_advisory_xact_lock(hashtext('checkout-reminders')) AS locked`);
      if (!locked.rows[0]?.locked) return;
      const candidates = await tx
        .select({
          id: checkouts.id,
          userId: checkouts.userId,
          items: checkouts.items,
          createdAt: checkouts.createdAt,
          email: users.email,
          name: users.name,
          consents: sql<boolean>`EXISTS (SELECT 1 FROM ${marketingConsents} WHERE ${marketingConsents.email} = lower(${users.email}) AND ${marketingConsents.status} = 'given')`,
          bought: sql<boolean>`(EXISTS (SELECT 1 FROM ${orders} WHERE ${orders.userId} = ${checkouts.userId} AND ${orders.createdAt} >= ${checkouts.createdAt})
            OR EXISTS (SELECT 1 FROM ${checkouts} AS later WHERE later.user_id = ${checkouts.userId} AND later.status IN ('paid', 'refunded') AND later.created_at >= ${checkouts.createdAt}))`,
          newer: sql<boolean>`EXISTS (SELECT 1 FROM ${checkouts} AS newer WHERE newer.user_id = ${checkouts.userId} AND newer.created_at > ${checkouts.createdAt})`,
        })
        .from(checkouts)
        .innerJoin(users, eq(users.id, checkouts.userId))
        .where(
          and(
            inArray(checkouts.status, [...UNPAID]),
            sql`${checkouts.createdAt} <= ${due} AND ${checkouts.createdAt} > ${oldest}`,
            sql`NOT EXISTS (SELECT 1 FROM ${checkoutReminders} AS claimed WHERE claimed.checkout_id = ${checkouts.id})`,
          ),
        )
        .orderBy(asc(checkouts.createdAt))
        .limit(500);
      for (const checkout of candidates) {
        const productIds = [...new Set(checkout.items.map((item) => item.id))];
        const variantIds = checkout.items.flatMap((item) => (item.variantId ? [item.variantId] : []));
        const inDrop =
          (
            await tx
              .select({ one: sql`1` })
              .from(dropItems)
              .innerJoin(productVariants, eq(productVariants.id, dropItems.variantId))
              .where(
                variantIds.length > 0
                  ? or(inArray(productVariants.productId, productIds), inArray(dropItems.variantId, variantIds))
                  : inArray(productVariants.productId, productIds),
              )
              .limit(1)
          ).length > 0;
        const verdict: ReminderVerdict = checkout.bought ? 'bought' : inDrop ? 'drop' : checkout.newer ? 'newer-checkout' : !checkout.consents ? 'no-consent' : 'sent';
        const claimed = await tx
          .insert(checkoutReminders)
          .values({ checkoutId: checkout.id, sent: verdict === 'sent', reason: verdict })
          .onConflictDoNothing()
          .returning({ id: checkoutReminders.checkoutId });
        if (claimed.length === 0) continue;
        verdicts.set(checkout.id, verdict);
        if (verdict !== 'sent') continue;
        const email = checkout.email.toLowerCase();
        const cartUrl = `${deps.publicUrl}/cart/restore?token=${encodeURIComponent(signConsentLink(deps.secret, 'cart-reminder', checkout.id, now.getTime()))}`;
        const lines = checkout.items.filter((item) => !item.giftCard).map((item) => ({ name: item.name, qty: item.qty, unitCents: item.unitCents }));
        await deps.jobs.sendInTransaction(tx, 'send-email', {
          ...cartReminderMail(email, checkout.name, lines, cartUrl, leaveLink(deps.publicUrl, deps.secret, email)),
          headers: listUnsubscribeHeaders(deps.publicUrl, deps.secret, email),
        });
      }
    },
    { isolationLevel: 'read committed' },
  );
  return verdicts;
}

/** The checkout a reminder's link names (valid and unexpired), and its lines; null for anything else. */
export async function checkoutOfReminderLink(db: Db, secrets: readonly string[], token: string) {
  const checkoutId = verifyConsentLink(secrets, 'cart-reminder', token);
  if (!checkoutId) return null;
  const [row] = await db.select({ items: checkouts.items }).from(checkouts).where(eq(checkouts.id, checkoutId));
  return row ? { checkoutId, items: row.items } : null;
}
