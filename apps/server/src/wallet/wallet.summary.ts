import { and, desc, eq, inArray } from 'drizzle-orm';
import {
  claimableTokens,
  claimableUsd,
  countsAsEdition,
  creditsTotal,
  earnedCreditShare,
  earningsDisplay,
  entryRewards,
  tokenSpotValueUsd,
  tokenValueShownUsd,
  royaltyShare,
  utilityPriceCents,
  WALLET_MESSAGES,
} from '@storefront/domain/wallet.ts';
import type { Db } from '../db/client.ts';
import { creditSummaries, datAssets, datEditions, platformMetrics, rewardTokenWallets, utilitySpend, walletEntries } from '../db/schema/index.ts';
import { AppError } from '../errors.ts';
import { getBalance } from './wallet.service.ts';

async function metrics(db: Db) {
  const rows = await db.select().from(platformMetrics);
  const value = (key: (typeof rows)[number]['key']) => rows.find((row) => row.key === key)?.value;
  return { utilitySoldCents: value('utilitySold.totalCents'), poolCents: value('datToken.poolCents'), circulating: value('datToken.circulating') };
}

/** Everything the wallet page shows, for the signed-in user only (spec sections 2, 3, 9). */
export async function walletSummary(db: Db, userId: string) {
  const [balance, platform, [credits], [spend], [rewardWallet], entries, owned] = await Promise.all([
    getBalance(db, userId),
    metrics(db),
    db.select().from(creditSummaries).where(eq(creditSummaries.userId, userId)),
    db.select().from(utilitySpend).where(eq(utilitySpend.userId, userId)),
    db.select().from(rewardTokenWallets).where(eq(rewardTokenWallets.userId, userId)),
    db.select().from(walletEntries).where(eq(walletEntries.userId, userId)),
    db
      .select({ edition: datEditions, asset: datAssets })
      .from(datEditions)
      .innerJoin(datAssets, eq(datAssets.id, datEditions.assetId))
      .where(eq(datEditions.ownerId, userId))
      .orderBy(desc(datAssets.releasedAt), datEditions.edition),
  ]);
  const price = utilityPriceCents(platform.utilitySoldCents);
  const spot = tokenSpotValueUsd(platform.poolCents, platform.utilitySoldCents, platform.circulating);
  const claimable = claimableTokens(spend?.totalCents ?? 0, price, spend?.awarded ?? 0);
  const counted = owned.filter((row) => countsAsEdition(row.edition.edition));
  return {
    balanceCents: balance.balanceCents,
    heldCents: balance.heldCents,
    /** Utility credits: one credit is one dollar of balance. */
    balanceCredits: balance.balanceCents / 100,
    creditsTotal: creditsTotal(credits?.currentCredits ?? 0, credits?.earnedCredits ?? 0),
    earnedCreditShare: earnedCreditShare(credits?.earnedCredits ?? 0),
    earningsUsd: earningsDisplay((credits?.streamEarningsCents ?? 0) / 100, (credits?.salesEarningsCents ?? 0) / 100),
    utilityPriceCents: price,
    tokenValueUsd: tokenValueShownUsd(platform.poolCents, platform.utilitySoldCents, platform.circulating),
    claimableTokens: claimable,
    claimableUsd: claimableUsd(claimable, spot),
    rewardTokens: Number(rewardWallet?.qty ?? 0),
    rewards: entries.reduce((sum, entry) => sum + entryRewards(entry), 0),
    ownedDats: counted.map(({ edition, asset }) => ({
      id: asset.id,
      edition: edition.edition,
      songName: asset.songName,
      artistName: asset.artistName,
      artworkUrl: asset.artworkUrl,
      sold: edition.sold,
      royaltiesCents: edition.royaltiesCents,
      earningsCents: edition.earningsCents,
    })),
  };
}

/** One DAT with the editions this user owns; not found if unknown. */
export async function datDetail(db: Db, userId: string, assetId: string) {
  const [asset] = await db.select().from(datAssets).where(eq(datAssets.id, assetId));
  if (!asset) throw new AppError('not-found', WALLET_MESSAGES.datNotFound);
  const editions = await db
    .select()
    .from(datEditions)
    .where(and(eq(datEditions.assetId, assetId), eq(datEditions.ownerId, userId)))
    .orderBy(datEditions.edition);
  return {
    id: asset.id,
    ArtworkURL: asset.artworkUrl,
    SongName: asset.songName,
    ArtistName: asset.artistName,
    creatorUsername: asset.creatorUsername,
    creatorId: asset.creatorId,
    releasedAt: asset.releasedAt.toISOString(),
    editions: editions
      .filter((e) => countsAsEdition(e.edition))
      .map((e) => ({
        edition: e.edition,
        sold: e.sold,
        royaltiesCents: e.royaltiesCents,
        // Spec section 9: the creator's royalty share counts 50 more.
        royaltyShare: royaltyShare(e.royaltiesCents, asset.creatorId === userId),
        earningsCents: e.earningsCents,
      })),
  };
}

/** assetsSummary/main: assets newest first with their editions. */
export async function assetsSummary(db: Db, limit = 100) {
  const assets = await db.select().from(datAssets).orderBy(desc(datAssets.releasedAt)).limit(limit);
  const editions = assets.length
    ? await db
        .select({ assetId: datEditions.assetId, edition: datEditions.edition })
        .from(datEditions)
        .where(
          inArray(
            datEditions.assetId,
            assets.map((a) => a.id),
          ),
        )
    : [];
  return assets.map((asset) => ({
    id: asset.id,
    creatorId: asset.creatorId,
    releaseTimestamp: asset.releasedAt.toISOString(),
    editions: editions.filter((e) => e.assetId === asset.id).map((e) => ({ edition: e.edition })),
  }));
}
