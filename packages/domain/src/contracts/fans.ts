import { z } from 'zod';
import { defineContract, noInput } from './define.ts';

const artistId = z.number().int().positive().max(2_147_483_647);

/** What a fan follows (issue 37, decision 074): the label, or one roster artist by number. */
export const followTarget = z.discriminatedUnion('kind', [z.object({ kind: z.literal('label') }).strict(), z.object({ kind: z.literal('artist'), artistId }).strict()]);

export const followsOutput = z.object({
  /** The fan follows the label. */
  label: z.boolean(),
  labelSince: z.string().nullable(),
  artists: z.array(z.object({ id: z.number(), name: z.string(), slug: z.string(), since: z.string() })),
});

export const fanContracts = {
  /** The caller's follows: the label and each artist, the newest first (/account, and every follow button's state). */
  listFollows: defineContract({ access: 'signed-in', input: noInput, output: followsOutput }),
  /** Follows (`followed` true) or unfollows the label or an artist; following twice is one follow. Answers the follows after. */
  setFollow: defineContract({
    access: 'signed-in',
    input: z.object({ target: followTarget, followed: z.boolean() }).strict(),
    output: followsOutput,
  }),
  /** The roster artists a product credits (its page's follow buttons); [] for none (merch of the label). */
  listProductArtists: defineContract({
    access: 'public',
    input: z.object({ productId: z.string().min(1).max(64) }).strict(),
    output: z.object({ artists: z.array(z.object({ id: z.number(), name: z.string(), slug: z.string() })) }),
  }),
};
