import { z } from 'zod';
import { defineContract, noInput, optionalNullable } from './define.ts';

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

/**
 * A page of the wallet's history (issue 17); `{"data": null}` asks for the first page.
 * Always the caller's own ledger: no user id is taken from the request.
 */
export const walletHistoryInput = z
  .object({
    limit: optionalNullable(z.number().int().min(1, 'The page size must be from 1 to 100.').max(100, 'The page size must be from 1 to 100.')),
    /** The `next` of the previous page. */
    after: optionalNullable(
      z
        .number({ error: 'That page cursor is not valid.' })
        .int('That page cursor is not valid.')
        .min(1, 'That page cursor is not valid.')
        .max(Number.MAX_SAFE_INTEGER, 'That page cursor is not valid.'),
    ),
  })
  .strict()
  .nullish()
  .transform((value) => value ?? {});

/** One ledger entry of the caller, with the order it belongs to and the balance after it. */
export const walletHistoryEntryOutput = z.object({
  id: z.number(),
  kind: z.enum(['grant', 'debit', 'hold', 'capture', 'release', 'refund']),
  createdAt: z.string(),
  /** Change of the spendable balance (negative for a debit or a hold). */
  amountCents: z.number(),
  /** Change of the credit on hold. */
  heldCents: z.number(),
  /** Spendable balance after this entry. */
  balanceCents: z.number(),
  note: z.string(),
  /** The order it paid for, when there is one (a hold released without an order has none). */
  order: z.object({ id: z.string(), paymentIntentId: z.string() }).nullable(),
});

export const walletContracts = {
  getWallet: defineContract({ access: 'signed-in', input: noInput, output: walletOutput }),
  listWalletHistory: defineContract({
    access: 'signed-in',
    input: walletHistoryInput,
    output: z.object({ entries: z.array(walletHistoryEntryOutput), next: z.number().nullable() }),
  }),
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
