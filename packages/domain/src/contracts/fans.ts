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

/** A page of the shop the consent was given on (a path), for the record. */
const pagePath = z
  .string()
  .trim()
  .max(300)
  .regex(/^\/[^\s]*$/, 'A page of the shop.');

export const consentOutput = z.object({
  consented: z.boolean(),
  /** How and where it was given, and when (null without consent). */
  source: z.string().nullable(),
  page: z.string().nullable(),
  givenAt: z.string().nullable(),
});

export const NEWS_MESSAGES = {
  invalidEmail: 'Please enter a valid email address.',
  sent: 'Check your inbox: we sent you a link to confirm.',
} as const;

/** A wishlisted product as /wishlist shows it (decision 076): its state and price now. */
export const wishlistOutput = z.object({
  items: z.array(
    z.object({
      productId: z.string(),
      name: z.string(),
      image: z.string(),
      /** The lowest price of its variants, in cents. */
      priceCents: z.number(),
      state: z.enum(['in-stock', 'sold-out', 'preorder']),
      addedAt: z.string(),
    }),
  ),
});

/** The console's Audience tab (issue 37 part 6, decision 078). */
export const audienceOutput = z.object({
  followers: z.object({
    /** Fans following the label or any artist. */
    fans: z.number(),
    label: z.number(),
    artists: z.array(z.object({ id: z.number(), name: z.string(), slug: z.string(), followers: z.number() })),
  }),
  consenting: z.number(),
  pending: z.number(),
  unsubscribed: z.number(),
  imported: z.number(),
  /** The last 12 weeks (Monday, UTC), oldest first: consents given, unsubscribes and follows made in each. */
  weeks: z.array(z.object({ week: z.string(), consents: z.number(), unsubscribes: z.number(), follows: z.number() })),
});

/** A cart line as the web app's cart keeps it (packages/domain/src/cart.ts), rebuilt from a reminder's link. */
const restoredLine = z.object({
  lineId: z.string(),
  productId: z.string().optional(),
  variantId: z.string().optional(),
  title: z.string(),
  image: z.string(),
  priceCents: z.number(),
  qty: z.number(),
  digital: z.literal(true).optional(),
  amountCents: z.number().optional(),
  minimumCents: z.number().optional(),
});

export const audienceSettingsOutput = z.object({
  /** Hours after a checkout was made when its one reminder goes; null: reminders off (the default). */
  cartReminderHours: z.number().nullable(),
});

export const REMINDER_HOURS = { min: 1, max: 720 } as const;

export const fanContracts = {
  /** The cart reminder's setting (issue 37 part 7): off by default. */
  getAudienceSettings: defineContract({ access: 'admin', input: noInput, output: audienceSettingsOutput }),
  /** Turns the reminder on with its hours (1 to 720), or off (null). */
  saveAudienceSettings: defineContract({
    access: 'admin',
    input: z
      .object({
        cartReminderHours: z
          .number()
          .int('Give the hours as a whole number from 1 to 720.')
          .min(REMINDER_HOURS.min, 'Give the hours as a whole number from 1 to 720.')
          .max(REMINDER_HOURS.max, 'Give the hours as a whole number from 1 to 720.')
          .nullable(),
      })
      .strict(),
    output: audienceSettingsOutput,
  }),
  /** A reminder's signed link: the lines of its checkout still for sale, as cart lines; `valid` false for a bad or expired link. */
  restoreCart: defineContract({
    access: 'public',
    input: z.object({ token: z.string().min(1).max(600) }).strict(),
    output: z.object({ lines: z.array(restoredLine), missing: z.number(), valid: z.boolean() }),
  }),
  /** The Audience tab's figures: followers, consenting fans, unsubscribes, growth by week. */
  getAudience: defineContract({ access: 'admin', input: noInput, output: audienceOutput }),
  /** The public sign-up form (no account): a mailed link confirms it (double opt-in). The same answer for any address. */
  subscribeToNews: defineContract({
    access: 'public',
    input: z
      .object({
        email: z.string().trim().max(254, NEWS_MESSAGES.invalidEmail).email(NEWS_MESSAGES.invalidEmail),
        page: pagePath,
      })
      .strict(),
    output: z.object({ ok: z.literal(true) }),
  }),
  /** The signed-in fan's marketing consent (/account). */
  getMyConsent: defineContract({ access: 'signed-in', input: noInput, output: consentOutput }),
  /** Gives (from /account, recorded with the page) or withdraws it in one click. */
  setMyConsent: defineContract({ access: 'signed-in', input: z.object({ consented: z.boolean(), page: pagePath }).strict(), output: consentOutput }),
  /** The caller's follows: the label and each artist, the newest first (/account, and every follow button's state). */
  listFollows: defineContract({ access: 'signed-in', input: noInput, output: followsOutput }),
  /** Follows (`followed` true) or unfollows the label or an artist; following twice is one follow. Answers the follows after. */
  setFollow: defineContract({
    access: 'signed-in',
    input: z.object({ target: followTarget, followed: z.boolean() }).strict(),
    output: followsOutput,
  }),
  /** The caller's wishlist, newest first (/wishlist, and every heart's state). */
  listWishlist: defineContract({ access: 'signed-in', input: noInput, output: wishlistOutput }),
  /** Hearts (`wishlisted` true) or un-hearts a product in the shop; twice is once. Answers the wishlist after. */
  setWishlisted: defineContract({
    access: 'signed-in',
    input: z.object({ productId: z.string().min(1).max(64), wishlisted: z.boolean() }).strict(),
    output: wishlistOutput,
  }),
  /** The roster artists a product credits (its page's follow buttons); [] for none (merch of the label). */
  listProductArtists: defineContract({
    access: 'public',
    input: z.object({ productId: z.string().min(1).max(64) }).strict(),
    output: z.object({ artists: z.array(z.object({ id: z.number(), name: z.string(), slug: z.string() })) }),
  }),
};
