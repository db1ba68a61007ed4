import { and, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import { countsAsEdition, MAX_BALANCE_CENTS, toNumber, WALLET_MESSAGES } from '@storefront/domain/wallet.ts';
import type { Db } from '../db/client.ts';
import {
  creditSummaries,
  datAssets,
  datEarnings,
  datEditions,
  platformMetrics,
  rewardTokenWallets,
  serviceWrites,
  users,
  utilitySpend,
  walletEntries,
} from '../db/schema/index.ts';
import { runTransaction, type Tx } from '../db/transaction.ts';
import { deletedEmail } from '../accounts/account-settings.service.ts';
import { AppError } from '../errors.ts';
import { publishLive } from '../live/live.publish.ts';
import { credit } from '../wallet/wallet.service.ts';

/**
 * Writes from the sister products: wallets, DATs, metrics and credit figures. Every
 * write is validated, carries an external id and is applied once; the owner hears of
 * it live.
 */
const externalId = z.string().regex(/^[A-Za-z0-9:._-]{1,120}$/, 'externalId: 1 to 120 letters, digits or : . _ -');
const user = z.union([z.object({ userId: z.string().min(1).max(64) }), z.object({ email: z.email() })]);
const cents = z.number().int().min(0).max(1e13);

export const SERVICE_WRITES = {
  'wallet-credits': z.object({ externalId, cents: cents.min(1), note: z.string().max(200).optional() }).and(user),
  dats: z
    .object({
      externalId,
      asset: z.object({
        id: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/),
        creatorId: z.string().min(1).max(64),
        creatorUsername: z.string().min(1).max(64),
        songName: z.string().min(1).max(200),
        artistName: z.string().min(1).max(200),
        artworkUrl: z
          .url({ protocol: /^https$/ })
          .max(1000)
          .or(z.string().regex(/^\/(?!\/)[A-Za-z0-9._~\-/%?=&+]{1,500}$/)),
        // Postgres has no year 0: a time before 0001-01-01 UTC is refused, not a 500.
        releasedAt: z.iso.datetime().refine((value) => new Date(value).getUTCFullYear() >= 1, 'releasedAt: the date must be 0001-01-01 or later.'),
      }),
      edition: z.number().int().min(1).max(1_000_000).optional(),
      sold: z.number().int().min(0).optional(),
      royaltiesCents: cents.optional(),
      earningsCents: cents.optional(),
    })
    .and(user.or(z.object({}))),
  metrics: z
    .object({ externalId, utilitySoldCents: cents.optional(), poolCents: cents.optional(), circulating: cents.optional() })
    .refine((m) => m.utilitySoldCents !== undefined || m.poolCents !== undefined || m.circulating !== undefined, 'Send at least one metric.'),
  'utility-spend': z.object({ externalId, addCents: cents, awarded: z.number().int().min(0).optional() }).and(user),
  'credit-strings': z
    .object({
      externalId,
      currentCredits: z.string().max(40).optional(),
      earnedCredits: z.string().max(40).optional(),
      streamEarningsCents: cents.optional(),
      salesEarningsCents: cents.optional(),
    })
    .and(user),
  'reward-tokens': z.object({ externalId, qty: z.number().min(0).max(1e12) }).and(user),
  'wallet-entries': z
    .object({
      externalId,
      entryId: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/),
      priceCents: cents,
      qty: z.number().min(0).max(1e12),
      rewards: z.number().optional(),
      rebate: z.number().optional(),
      internalRebate: z.number().optional(),
      internalRewards: z.number().optional(),
      rewardsTokens: z.number().optional(),
      rebates: z.number().optional(),
    })
    .and(user),
} as const;

export type ServiceWriteKind = keyof typeof SERVICE_WRITES;
type Kind = ServiceWriteKind;

/**
 * The account a write names. A deleted account (decision 032) is no user to the sister
 * products: it takes no credit and no write. The row is read FOR SHARE, so a deletion
 * committing meanwhile is seen (read committed re-reads a row it waited for) and a
 * deletion waits for a credit already under way.
 */
async function resolveUser(tx: Tx, who: { userId?: string; email?: string }): Promise<string> {
  const where = who.userId ? eq(users.id, who.userId) : eq(users.email, who.email!.toLowerCase());
  const [row] = await tx.select({ id: users.id, email: users.email }).from(users).where(where).for('share');
  if (!row || row.email === deletedEmail(row.id)) throw new AppError('not-found', 'No such user.');
  return row.id;
}

/**
 * Writes one edition and attributes what it earned since the last report (decision 019):
 * the rise of its lifetime figure above the highest one already counted goes to whoever
 * owned it until this write (the named owner when the write creates it), and only for the
 * editions the wallet shows. The row is locked first, so concurrent reports count a rise once.
 */
async function writeEdition(tx: Tx, edition: typeof datEditions.$inferInsert & { earningsCents: number }, reference: string) {
  const key = and(eq(datEditions.assetId, edition.assetId), eq(datEditions.edition, edition.edition))!;
  await tx.insert(datEditions).values(edition).onConflictDoNothing();
  const [before] = await tx.select().from(datEditions).where(key).for('update');
  const rise = edition.earningsCents - before!.earningsCountedCents;
  if (rise > 0 && before!.ownerId && countsAsEdition(edition.edition)) {
    await tx.insert(datEarnings).values({ ownerId: before!.ownerId, assetId: edition.assetId, edition: edition.edition, cents: rise, reference });
  }
  await tx
    .update(datEditions)
    .set({ ...edition, earningsCountedCents: Math.max(edition.earningsCents, before!.earningsCountedCents) })
    .where(key);
}

async function apply(tx: Tx, kind: Kind, input: Record<string, unknown>, reference: string): Promise<string | null> {
  const who = input as { userId?: string; email?: string };
  switch (kind) {
    case 'wallet-credits': {
      const userId = await resolveUser(tx, who);
      await credit(tx, userId, input.cents as number, `service:${reference}`, 'grant', (input.note as string | undefined) ?? '');
      return userId;
    }
    case 'dats': {
      const asset = input.asset as z.infer<(typeof SERVICE_WRITES)['dats']>['asset'];
      const row = { ...asset, releasedAt: new Date(asset.releasedAt) };
      await tx.insert(datAssets).values(row).onConflictDoUpdate({ target: datAssets.id, set: row });
      if (input.edition === undefined) return null;
      const ownerId = who.userId || who.email ? await resolveUser(tx, who) : null;
      const edition = {
        assetId: asset.id,
        edition: input.edition as number,
        ownerId,
        sold: (input.sold as number | undefined) ?? 0,
        royaltiesCents: (input.royaltiesCents as number | undefined) ?? 0,
        earningsCents: (input.earningsCents as number | undefined) ?? 0,
      };
      await writeEdition(tx, edition, reference);
      return ownerId;
    }
    case 'metrics': {
      const pairs = [
        ['utilitySold.totalCents', input.utilitySoldCents],
        ['datToken.poolCents', input.poolCents],
        ['datToken.circulating', input.circulating],
      ] as const;
      for (const [key, value] of pairs) {
        if (value === undefined) continue;
        await tx
          .insert(platformMetrics)
          .values({ key, value: value as number })
          .onConflictDoUpdate({ target: platformMetrics.key, set: { value: value as number, updatedAt: new Date() } });
      }
      return null;
    }
    case 'utility-spend': {
      const userId = await resolveUser(tx, who);
      const awarded = input.awarded as number | undefined;
      const added = await tx
        .insert(utilitySpend)
        .values({ userId, totalCents: input.addCents as number, awarded: awarded ?? 0 })
        .onConflictDoUpdate({
          target: utilitySpend.userId,
          set: { totalCents: sql`${utilitySpend.totalCents} + ${input.addCents as number}`, ...(awarded === undefined ? {} : { awarded }) },
          // A running total stays an exact JavaScript number (decision 019).
          setWhere: sql`${utilitySpend.totalCents} + ${input.addCents as number} <= ${MAX_BALANCE_CENTS}`,
        })
        .returning({ userId: utilitySpend.userId });
      if (added.length === 0) throw new AppError('failed-precondition', WALLET_MESSAGES.balanceCap);
      return userId;
    }
    case 'credit-strings': {
      const userId = await resolveUser(tx, who);
      const set = {
        ...(input.currentCredits === undefined ? {} : { currentCredits: toNumber(input.currentCredits) }),
        ...(input.earnedCredits === undefined ? {} : { earnedCredits: toNumber(input.earnedCredits) }),
        ...(input.streamEarningsCents === undefined ? {} : { streamEarningsCents: input.streamEarningsCents as number }),
        ...(input.salesEarningsCents === undefined ? {} : { salesEarningsCents: input.salesEarningsCents as number }),
      };
      await tx
        .insert(creditSummaries)
        .values({ userId, ...set })
        .onConflictDoUpdate({ target: creditSummaries.userId, set: Object.keys(set).length ? set : { userId } });
      return userId;
    }
    case 'reward-tokens': {
      const userId = await resolveUser(tx, who);
      await tx
        .insert(rewardTokenWallets)
        .values({ userId, qty: input.qty as number })
        .onConflictDoUpdate({ target: rewardTokenWallets.userId, set: { qty: input.qty as number } });
      return userId;
    }
    case 'wallet-entries': {
      const userId = await resolveUser(tx, who);
      const { externalId: _e, userId: _u, email: _m, ...fields } = input as Record<string, unknown>;
      const entry = { userId, ...(fields as Omit<typeof walletEntries.$inferInsert, 'userId'>) };
      await tx
        .insert(walletEntries)
        .values(entry)
        .onConflictDoUpdate({ target: [walletEntries.userId, walletEntries.entryId], set: entry });
      return userId;
    }
  }
}

/**
 * Validates and applies one write once per (token, kind, external id): each sister product
 * has its own ids (decision 019). The routes and the seed use it.
 */
export async function applyServiceWrite(db: Db, tokenId: string, kind: Kind, body: unknown) {
  const input = SERVICE_WRITES[kind].parse(body) as Record<string, unknown> & { externalId: string };
  return runTransaction(
    db,
    async (tx) => {
      const fresh = await tx
        .insert(serviceWrites)
        .values({ externalId: input.externalId, tokenId, kind })
        .onConflictDoNothing()
        .returning({ externalId: serviceWrites.externalId });
      if (fresh.length === 0) return { ok: true, replayed: true };
      const ownerId = await apply(tx, kind, input, `${tokenId}:${kind}:${input.externalId}`);
      if (ownerId) await publishLive(tx, { topic: 'wallet', userId: ownerId, id: input.externalId });
      return { ok: true, replayed: false };
    },
    { isolationLevel: 'read committed' },
  );
}
