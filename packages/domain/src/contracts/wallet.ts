import { z } from 'zod';
import { defineContract, noInput } from './define.ts';

/** One edition of a DAT the user owns (only editions 1 to 20 count, spec section 9). */
export const ownedDatOutput = z.object({
  id: z.string(),
  edition: z.number(),
  songName: z.string(),
  artistName: z.string(),
  artworkUrl: z.string(),
  sold: z.number(),
  royaltiesCents: z.number(),
  earningsCents: z.number(),
});

/** The signed-in user's wallet with the spec's section 9 figures worked out by the server. */
export const walletOutput = z.object({
  balanceCents: z.number(),
  heldCents: z.number(),
  balanceCredits: z.number(),
  creditsTotal: z.number(),
  earnedCreditShare: z.number(),
  earningsUsd: z.number(),
  utilityPriceCents: z.number(),
  tokenValueUsd: z.number(),
  claimableTokens: z.number(),
  claimableUsd: z.number(),
  rewardTokens: z.number(),
  rewards: z.number(),
  ownedDats: z.array(ownedDatOutput),
});

/** A DAT asset (spec section 3) with the editions the signed-in user owns. */
export const datOutput = z.object({
  id: z.string(),
  ArtworkURL: z.string(),
  SongName: z.string(),
  ArtistName: z.string(),
  creatorUsername: z.string(),
  creatorId: z.string(),
  releasedAt: z.string(),
  editions: z.array(
    z.object({
      edition: z.number(),
      sold: z.number(),
      royaltiesCents: z.number(),
      royaltyShare: z.number(),
      earningsCents: z.number(),
    }),
  ),
});

export const walletContracts = {
  getWallet: defineContract({ access: 'signed-in', input: noInput, output: walletOutput }),
  getDat: defineContract({
    access: 'signed-in',
    input: z.object({ id: z.string().min(1).max(100) }).strict(),
    output: datOutput,
  }),
  getAssetsSummary: defineContract({
    access: 'public',
    input: noInput,
    output: z.object({
      assets: z.array(
        z.object({
          id: z.string(),
          creatorId: z.string(),
          releaseTimestamp: z.string(),
          editions: z.array(z.object({ edition: z.number() })),
        }),
      ),
    }),
  }),
};
