import { and, eq, sql } from 'drizzle-orm';
import { bundleStock } from '@storefront/domain/bundles.ts';
import { DROP_MESSAGES, type WaitlistStatus } from '@storefront/domain/drops.ts';
import { lineName } from '@storefront/domain/variants.ts';
import { contactOf } from '../accounts/accounts.service.ts';
import { partsOf } from '../catalog/variants.service.ts';
import type { Db } from '../db/client.ts';
import { dropItems, drops, products, productVariants, variantWaitlist } from '../db/schema/index.ts';
import { runTransaction } from '../db/transaction.ts';
import { AppError } from '../errors.ts';
import type { JobQueue } from '../jobs/queue.ts';
import { waitlistOfferMail } from './drops.mail.ts';
import { EMAIL_ENTRY_PREFIX, signWaitlistLeave } from './drop-tokens.ts';
import { adoptEntryOfAccount, listableVariant } from './notify-me.service.ts';

/**
 * One waitlist per variant (issue 35 item 6, decision 066); the fans issue's "notify me"
 * reuses it. Units that come back are offered in join order, one unit per fan, each with
 * its own window and an email; an offer not used in its window passes to the next fan.
 */

/** How long an offer keeps a unit for a variant in no drop. */
export const DEFAULT_OFFER_MS = 10 * 60 * 1000;

async function variantName(db: Db, variantId: string): Promise<{ productId: string; name: string } | undefined> {
  const [row] = await db
    .select({ productId: products.id, productName: products.name, optionValues: productVariants.optionValues, stock: productVariants.stock })
    .from(productVariants)
    .innerJoin(products, eq(products.id, productVariants.productId))
    .where(eq(productVariants.id, variantId));
  return row && { productId: row.productId, name: lineName(row.productName, row.optionValues) };
}

async function entryView(db: Db, row: typeof variantWaitlist.$inferSelect) {
  const variant = await variantName(db, row.variantId);
  const [ahead] =
    row.status === 'waiting'
      ? await db
          .select({ n: sql<number>`count(*)`.mapWith(Number) })
          .from(variantWaitlist)
          .where(and(eq(variantWaitlist.variantId, row.variantId), eq(variantWaitlist.status, 'waiting'), sql`${variantWaitlist.seq} < ${row.seq}`))
      : [];
  const offered = row.status === 'offered' && row.offerExpiresAt !== null && row.offerExpiresAt > new Date();
  return {
    variantId: row.variantId,
    productId: variant?.productId ?? '',
    name: variant?.name ?? '',
    status: (row.status === 'offered' && !offered ? 'missed' : row.status) as WaitlistStatus,
    place: ahead ? ahead.n + 1 : null,
    offerExpiresAt: offered ? row.offerExpiresAt!.toISOString() : null,
  };
}

/**
 * Joins a variant's waitlist (again, after leaving or missing an offer: at the end); notify me
 * signed in, in one click (decision 076). An entry the account's address made signed out
 * becomes the account's, keeping its place: a person asking twice is one entry.
 */
export async function joinWaitlist(db: Db, userId: string, variantId: string) {
  await listableVariant(db, variantId);
  const row = await runTransaction(db, async (tx) => {
    await adoptEntryOfAccount(tx, userId, variantId);
    const [joined] = await tx
      .insert(variantWaitlist)
      .values({ variantId, userId })
      .onConflictDoUpdate({
        target: [variantWaitlist.variantId, variantWaitlist.userId],
        // Rejoining after leaving or missing an offer goes to the end; a waiting or offered fan keeps their place.
        set: {
          seq: sql`CASE WHEN ${variantWaitlist.status} IN ('left', 'missed', 'bought') THEN nextval(pg_get_serial_sequence('variant_waitlist', 'seq')) ELSE ${variantWaitlist.seq} END`,
          status: sql`CASE WHEN ${variantWaitlist.status} IN ('left', 'missed', 'bought') THEN 'waiting' ELSE ${variantWaitlist.status} END`,
          joinedAt: sql`CASE WHEN ${variantWaitlist.status} IN ('left', 'missed', 'bought') THEN now() ELSE ${variantWaitlist.joinedAt} END`,
        },
      })
      .returning();
    return joined!;
  });
  return entryView(db, row);
}

export async function leaveWaitlist(db: Db, userId: string, variantId: string): Promise<void> {
  const left = await db
    .update(variantWaitlist)
    .set({ status: 'left', endedAt: new Date() })
    .where(and(eq(variantWaitlist.variantId, variantId), eq(variantWaitlist.userId, userId), sql`${variantWaitlist.status} IN ('waiting', 'offered')`))
    .returning({ seq: variantWaitlist.seq });
  if (left.length === 0) {
    const [row] = await db
      .select({ seq: variantWaitlist.seq })
      .from(variantWaitlist)
      .where(and(eq(variantWaitlist.variantId, variantId), eq(variantWaitlist.userId, userId)));
    if (!row) throw new AppError('failed-precondition', DROP_MESSAGES.notOnWaitlist);
  }
}

export async function myWaitlists(db: Db, userId: string) {
  const rows = await db
    .select()
    .from(variantWaitlist)
    .where(and(eq(variantWaitlist.userId, userId), sql`${variantWaitlist.status} IN ('waiting', 'offered')`))
    .orderBy(variantWaitlist.joinedAt);
  const entries = [];
  for (const row of rows) entries.push(await entryView(db, row));
  return { entries };
}

/** The console's waiting demand per variant: fans waiting and fans holding an offer. */
export async function waitingDemand(db: Db) {
  const rows = await db
    .select({
      variantId: variantWaitlist.variantId,
      productId: products.id,
      productName: products.name,
      optionValues: productVariants.optionValues,
      waiting: sql<number>`count(*) FILTER (WHERE ${variantWaitlist.status} = 'waiting')`.mapWith(Number),
      offered: sql<number>`count(*) FILTER (WHERE ${variantWaitlist.status} = 'offered' AND ${variantWaitlist.offerExpiresAt} > now())`.mapWith(Number),
    })
    .from(variantWaitlist)
    .innerJoin(productVariants, eq(productVariants.id, variantWaitlist.variantId))
    .innerJoin(products, eq(products.id, productVariants.productId))
    .groupBy(variantWaitlist.variantId, products.id, products.name, productVariants.optionValues)
    .having(sql`count(*) FILTER (WHERE ${variantWaitlist.status} IN ('waiting', 'offered')) > 0`)
    .orderBy(sql`count(*) FILTER (WHERE ${variantWaitlist.status} = 'waiting') DESC`);
  return {
    variants: rows.map((row) => ({
      variantId: row.variantId,
      productId: row.productId,
      name: lineName(row.productName, row.optionValues),
      waiting: row.waiting,
      offered: row.offered,
    })),
  };
}

export interface OfferDeps {
  db: Db;
  jobs: JobQueue;
  publicUrl: string;
  secret: string;
}

/**
 * Offers units that came back (decision 066): for each variant with fans waiting, the units
 * in stock beyond the open offers go to the next fans in join order, one each, with the drop's
 * checkout window (DEFAULT_OFFER_MS outside a drop) and an email queued in the same
 * transaction. Offers past their window are missed first, so their units pass on. One
 * instance at a time (a transaction-scoped advisory lock; the others skip the round).
 * Variants of a drop that has not sold out are left to the drop's queue.
 */
export async function offerReturnedUnits(deps: OfferDeps, now = new Date()): Promise<number> {
  return runTransaction(
    deps.db,
    async (tx) => {
      const locked = await tx.execute<{ locked: boolean }>(sql`SELECT pg_try_advisory_xact_lock(hashtext('variant-waitlist-offers')) AS locked`);
      if (!locked.rows[0]?.locked) return 0;
      await tx
        .update(variantWaitlist)
        .set({ status: 'missed', endedAt: now })
        .where(and(eq(variantWaitlist.status, 'offered'), sql`${variantWaitlist.offerExpiresAt} <= ${now}`));
      const candidates = await tx
        .select({
          variantId: variantWaitlist.variantId,
          productId: products.id,
          stock: productVariants.stock,
          bundle: products.bundle,
          productName: products.name,
          optionValues: productVariants.optionValues,
          offered: sql<number>`count(*) FILTER (WHERE ${variantWaitlist.status} = 'offered')`.mapWith(Number),
          windowSeconds: sql<
            number | null
          >`(SELECT min(${drops.checkoutWindowSeconds}) FROM ${dropItems} JOIN ${drops} ON ${drops.id} = ${dropItems.dropId} WHERE ${dropItems.variantId} = ${variantWaitlist.variantId} AND ${drops.status} = 'sold-out')`,
          inOpenDrop: sql<boolean>`EXISTS (SELECT 1 FROM ${dropItems} JOIN ${drops} ON ${drops.id} = ${dropItems.dropId} WHERE ${dropItems.variantId} = ${variantWaitlist.variantId} AND ${drops.status} IN ('scheduled', 'postponed', 'live'))`,
        })
        .from(variantWaitlist)
        .innerJoin(productVariants, eq(productVariants.id, variantWaitlist.variantId))
        .innerJoin(products, eq(products.id, productVariants.productId))
        .where(sql`${variantWaitlist.status} IN ('waiting', 'offered')`)
        .groupBy(variantWaitlist.variantId, products.id, productVariants.stock, products.bundle, products.name, productVariants.optionValues);
      // A bundle's variant has no stock of its own: what its parts allow now (a part's unit back tells the bundle's list too).
      const bundleParts = await partsOf(
        tx,
        candidates.filter((variant) => variant.bundle && variant.stock === null).map((variant) => variant.variantId),
      );
      let made = 0;
      for (const variant of candidates) {
        const parts = bundleParts.get(variant.variantId);
        const stock = variant.bundle && variant.stock === null ? (parts && parts.length > 0 ? bundleStock(parts) : 0) : variant.stock;
        if (variant.inOpenDrop || stock === null) continue;
        const free = stock - variant.offered;
        if (free <= 0) continue;
        const windowMs = variant.windowSeconds !== null ? Number(variant.windowSeconds) * 1000 : DEFAULT_OFFER_MS;
        const offerExpiresAt = new Date(now.getTime() + windowMs);
        const next = await tx
          .select({ seq: variantWaitlist.seq, userId: variantWaitlist.userId, email: variantWaitlist.email })
          .from(variantWaitlist)
          .where(and(eq(variantWaitlist.variantId, variant.variantId), eq(variantWaitlist.status, 'waiting')))
          .orderBy(variantWaitlist.seq)
          .limit(free);
        for (const fan of next) {
          await tx.update(variantWaitlist).set({ status: 'offered', offeredAt: now, offerExpiresAt }).where(eq(variantWaitlist.seq, fan.seq));
          // An account's entry is mailed at its address; a signed-out one at the address it confirmed (decision 076).
          const contact = fan.userId ? await contactOf(tx, fan.userId) : fan.email ? { email: fan.email, name: '' } : undefined;
          if (contact) {
            const who = fan.userId ?? `${EMAIL_ENTRY_PREFIX}${fan.email}`;
            const leaveUrl = `${deps.publicUrl}/waitlist/leave?token=${encodeURIComponent(signWaitlistLeave(deps.secret, variant.variantId, who))}`;
            await deps.jobs.sendInTransaction(
              tx,
              'send-email',
              waitlistOfferMail(
                contact.email,
                contact.name,
                { name: lineName(variant.productName, variant.optionValues), until: offerExpiresAt, kept: variant.windowSeconds !== null },
                `${deps.publicUrl}/product/${encodeURIComponent(variant.productId)}`,
                leaveUrl,
              ),
            );
          }
          made += 1;
        }
      }
      return made;
    },
    { isolationLevel: 'read committed' },
  );
}
