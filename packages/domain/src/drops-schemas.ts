import { z } from 'zod';
import { optionalNullable } from './contracts/define.ts';
import { DROP_ENTRY_STATUSES, DROP_MESSAGES, DROP_SLUG_PATTERN, DROP_STATUSES, WAITLIST_STATUSES } from './drops.ts';

/** The inputs and outputs of the drop's callable functions (issue 35, decision 066). */

const id = z.string().min(1).max(64);
const instant = z.iso.datetime({ offset: true });
const limit = z.number().int(DROP_MESSAGES.limitRange).min(1, DROP_MESSAGES.limitRange).max(100, DROP_MESSAGES.limitRange);
const perMinute = z.number().int(DROP_MESSAGES.rateRange).min(1, DROP_MESSAGES.rateRange).max(100_000, DROP_MESSAGES.rateRange);
const maxAdmitted = z.number().int(DROP_MESSAGES.maxAdmittedRange).min(1, DROP_MESSAGES.maxAdmittedRange).max(100_000, DROP_MESSAGES.maxAdmittedRange);
const windowSeconds = z.number().int(DROP_MESSAGES.windowRange).min(60, DROP_MESSAGES.windowRange).max(3600, DROP_MESSAGES.windowRange);

/** The label's drop form. `variantIds`: the variants sold in the drop (a product's every variant, or some). */
export const scheduleDropInput = z
  .object({
    name: z.string().trim().min(1, DROP_MESSAGES.name).max(120, DROP_MESSAGES.name),
    slug: z.string().trim().regex(DROP_SLUG_PATTERN, DROP_MESSAGES.slugFormat),
    variantIds: z.array(id).min(1, DROP_MESSAGES.variantsNeeded).max(100),
    startsAt: instant,
    /** When fans may start joining (the pre-queue); before startsAt. */
    queueOpensAt: instant,
    perCustomerLimit: limit,
    admissionsPerMinute: perMinute,
    maxAdmitted,
    checkoutWindowSeconds: windowSeconds,
    challenge: z.boolean(),
  })
  .strict()
  .superRefine((input, ctx) => {
    if (Date.parse(input.queueOpensAt) >= Date.parse(input.startsAt)) ctx.addIssue({ code: 'custom', path: ['queueOpensAt'], message: DROP_MESSAGES.queueOpensBeforeStart });
  });
export type ScheduleDropInput = z.output<typeof scheduleDropInput>;

/** Changes to a scheduled or postponed drop; absent fields stay. The seed and its commitment never change. */
export const editDropInput = z
  .object({
    dropId: id,
    name: optionalNullable(z.string().trim().min(1, DROP_MESSAGES.name).max(120, DROP_MESSAGES.name)),
    slug: optionalNullable(z.string().trim().regex(DROP_SLUG_PATTERN, DROP_MESSAGES.slugFormat)),
    variantIds: optionalNullable(z.array(id).min(1, DROP_MESSAGES.variantsNeeded).max(100)),
    startsAt: optionalNullable(instant),
    queueOpensAt: optionalNullable(instant),
    perCustomerLimit: optionalNullable(limit),
    admissionsPerMinute: optionalNullable(perMinute),
    maxAdmitted: optionalNullable(maxAdmitted),
    checkoutWindowSeconds: optionalNullable(windowSeconds),
    challenge: optionalNullable(z.boolean()),
  })
  .strict();
export type EditDropInput = z.output<typeof editDropInput>;

/** Cancelling keeps the entries and tells them; `note` is shown to them (optional). */
export const cancelDropInput = z.object({ dropId: id, note: optionalNullable(z.string().trim().max(500)) }).strict();

/** Postponing moves the start (and the queue's opening, if given); entries are kept in their places. */
export const postponeDropInput = z
  .object({ dropId: id, startsAt: instant, queueOpensAt: optionalNullable(instant), note: optionalNullable(z.string().trim().max(500)) })
  .strict()
  .superRefine((input, ctx) => {
    if (input.queueOpensAt && Date.parse(input.queueOpensAt) >= Date.parse(input.startsAt))
      ctx.addIssue({ code: 'custom', path: ['queueOpensAt'], message: DROP_MESSAGES.queueOpensBeforeStart });
  });

export const dropIdInput = z.object({ dropId: id }).strict();
/** A drop by its id or its address (slug), for the public page. */
export const dropRefInput = z.union([z.object({ dropId: id }).strict(), z.object({ slug: z.string().trim().min(1).max(64) }).strict()]);

/** Joining: the solved proof-of-work (the altcha payload, base64 JSON) when the drop asks for one. */
export const joinDropInput = z.object({ dropId: id, challenge: optionalNullable(z.string().max(4000)) }).strict();

export const variantIdInput = z.object({ variantId: id }).strict();
/** Notify me signed out (decision 076): the variant and the address to confirm by mail. */
export const notifyMeByEmailInput = z
  .object({
    variantId: id,
    email: z.string().trim().max(254, DROP_MESSAGES.notifyInvalidEmail).email(DROP_MESSAGES.notifyInvalidEmail),
  })
  .strict();
/** The notify-me confirmation mail's link carries a signed token; no sign-in needed. */
export const confirmNotifyMeInput = z.object({ token: z.string().min(10).max(1000) }).strict();
export const confirmNotifyMeOutput = z.object({ productId: z.string(), name: z.string() });
/** The waitlist mail's "leave this list" link carries a signed token; no sign-in needed. */
export const leaveWaitlistByLinkInput = z.object({ token: z.string().min(10).max(1000) }).strict();

const dropItem = z.object({
  productId: z.string(),
  variantId: z.string(),
  /** The product's name with its option values, e.g. "Tour Tee (M)". */
  name: z.string(),
  priceCents: z.number(),
  image: z.string().nullable(),
  /** Units left to sell (null: the variant keeps no count). */
  unitsLeft: z.number().nullable(),
});

/** What everyone may read of a drop (the drop page). */
export const publicDropOutput = z.object({
  id: z.string(),
  slug: z.string(),
  name: z.string(),
  status: z.enum(DROP_STATUSES),
  items: z.array(dropItem),
  startsAt: z.string(),
  queueOpensAt: z.string(),
  perCustomerLimit: z.number(),
  admissionsPerMinute: z.number(),
  checkoutWindowSeconds: z.number(),
  challenge: z.boolean(),
  /** SHA-256 of the seed (hex), public from scheduling on. */
  seedHash: z.string(),
  /** SHA-256 of the pre-queue's entry list, published at the start. */
  entryListHash: z.string().nullable(),
  /** The seed, revealed once the start has published the list's hash. */
  seed: z.string().nullable(),
  /** Entries in the pre-queue (numbers 1..preQueueCount, shuffled by the seed), fixed at the start; null before. */
  preQueueCount: z.number().nullable(),
  entrants: z.number(),
  /** The highest position admitted so far (0 before the first admission). */
  nowServing: z.number(),
  startedAt: z.string().nullable(),
  soldOutAt: z.string().nullable(),
  /** The label's words to the entrants when it cancelled or postponed the drop. */
  note: z.string().nullable(),
  serverTime: z.string(),
});

/** The console's view of a drop: the public one and its figures. */
export const adminDropOutput = publicDropOutput.extend({
  maxAdmitted: z.number(),
  admittedNow: z.number(),
  bought: z.number(),
  challengeFailures: z.number(),
  createdAt: z.string(),
});

/** A fan's own place in a drop. `entry` null: not joined. */
export const dropStateOutput = z.object({
  dropId: z.string(),
  dropStatus: z.enum(DROP_STATUSES),
  entry: z
    .object({
      /** Numbered by the database in join order. */
      number: z.number(),
      /** Place in the queue; null for a pre-queue entry until the start shuffles it. */
      position: z.number().nullable(),
      status: z.enum(DROP_ENTRY_STATUSES),
      /** While admitted: when the checkout window ends. */
      expiresAt: z.string().nullable(),
      /** While admitted: the signed admission (decision 066), bound to account, drop, entry and expiry. */
      admission: z.string().nullable(),
      unitsBought: z.number(),
    })
    .nullable(),
  nowServing: z.number(),
  /** Fans ahead (position - now serving), null when not waiting with a position. */
  ahead: z.number().nullable(),
  estimatedWaitSeconds: z.number().nullable(),
  perCustomerLimit: z.number(),
  note: z.string().nullable(),
  serverTime: z.string(),
});

/** The solved proof-of-work's challenge (altcha's format), for the altcha widget or solver. */
export const dropChallengeOutput = z.object({
  algorithm: z.string(),
  challenge: z.string(),
  maxnumber: z.number().optional(),
  salt: z.string(),
  signature: z.string(),
});

/** The public fairness data: entry numbers only, no personal data. */
export const dropFairnessOutput = z.object({
  dropId: z.string(),
  slug: z.string(),
  status: z.enum(DROP_STATUSES),
  seedHash: z.string(),
  entryListHash: z.string().nullable(),
  seed: z.string().nullable(),
  /** The pre-queue's entry numbers, ascending (after the start). */
  preQueue: z.array(z.number()),
  /** The pre-queue in its fair order (position p is order[p-1]); later arrivals follow in join order (position = number). */
  order: z.array(z.number()),
  entrants: z.number(),
  nowServing: z.number(),
  /** Share of admissions that followed the order (1 = all). */
  inOrderShare: z.number(),
});

export const dropReportOutput = z.object({
  dropId: z.string(),
  name: z.string(),
  status: z.enum(DROP_STATUSES),
  entrants: z.number(),
  challengeFailures: z.number(),
  admitted: z.number(),
  bought: z.number(),
  unitsSold: z.number(),
  /** How many buyers bought 1, 2, ... units. */
  unitsPerBuyer: z.array(z.object({ units: z.number(), buyers: z.number() })),
  startedAt: z.string().nullable(),
  soldOutAt: z.string().nullable(),
  secondsToSoldOut: z.number().nullable(),
  /** Wait from the start (or the join, if later) to admission, in seconds. */
  medianWaitSeconds: z.number().nullable(),
  p95WaitSeconds: z.number().nullable(),
  seed: z.string().nullable(),
  seedHash: z.string(),
  entryListHash: z.string().nullable(),
  /** Whether the seed matches its commitment and every admission followed the order. */
  seedMatchesCommitment: z.boolean().nullable(),
  inOrderShare: z.number(),
  admissionsOutOfOrder: z.number(),
});

export const waitlistEntryOutput = z.object({
  variantId: z.string(),
  productId: z.string(),
  name: z.string(),
  status: z.enum(WAITLIST_STATUSES),
  /** Fans ahead on the list plus one, while waiting. */
  place: z.number().nullable(),
  /** While offered: until when the unit is kept for you. */
  offerExpiresAt: z.string().nullable(),
});

export const waitingDemandOutput = z.object({
  variants: z.array(z.object({ variantId: z.string(), productId: z.string(), name: z.string(), waiting: z.number(), offered: z.number() })),
});

/** A drop a fan can still meet (scheduled, postponed or live), for the shop's links and a drop product's page. */
export const openDropOutput = z.object({
  id: z.string(),
  slug: z.string(),
  name: z.string(),
  status: z.enum(DROP_STATUSES),
  startsAt: z.string(),
  /** The products in the drop (each variant's product once). */
  productIds: z.array(z.string()),
});
