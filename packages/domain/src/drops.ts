/**
 * Fair drops (issue 35, decision 066): a waiting room with a provable order and admission
 * only against stock. Pure rules and the exact sentences both sides show. The hashing uses
 * Web Crypto (`crypto.subtle`), which Node 24 and every browser have, so the fairness page
 * and `scripts/verify-drop.mjs` compute exactly what the server does.
 */

export const DROP_STATUSES = ['scheduled', 'live', 'sold-out', 'cancelled', 'postponed'] as const;
export type DropStatus = (typeof DROP_STATUSES)[number];

/** A fan's entry: waiting in the queue, admitted (until expiresAt), or ended one of four ways. */
export const DROP_ENTRY_STATUSES = ['waiting', 'admitted', 'bought', 'left', 'expired', 'closed'] as const;
export type DropEntryStatus = (typeof DROP_ENTRY_STATUSES)[number];

/** A fan on a variant's waitlist: waiting, offered a unit (until offerExpiresAt), or done. */
export const WAITLIST_STATUSES = ['waiting', 'offered', 'bought', 'left', 'missed'] as const;
export type WaitlistStatus = (typeof WAITLIST_STATUSES)[number];

/** A drop whose variants can be bought only with an admission (or a waitlist offer once sold out). */
export const GUARDED_DROP_STATUSES: readonly DropStatus[] = ['scheduled', 'postponed', 'live'];

export const DROP_SLUG_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;

export const DROP_MESSAGES = {
  notFound: 'This drop does not exist.',
  slugFormat: 'Use lower-case letters, digits and dashes for the address (up to 64).',
  slugTaken: 'Another drop already uses this address.',
  name: 'Give the drop a name.',
  variantsNeeded: 'Choose at least one product or variant for the drop.',
  unknownVariant: 'One of the chosen variants does not exist.',
  variantInOtherDrop: 'One of the chosen variants is already in another drop that has not ended.',
  bundleNotAllowed: 'A bundle cannot be in a drop: put the variants it is made of in the drop instead.',
  startInFuture: 'The start must be in the future.',
  queueOpensBeforeStart: 'The queue must open before the start.',
  limitRange: 'The limit per customer must be a whole number from 1 to 100.',
  rateRange: 'The admissions per minute must be a whole number from 1 to 100000.',
  maxAdmittedRange: 'The most fans admitted at once must be a whole number from 1 to 100000.',
  windowRange: 'The checkout window must be from 60 to 3600 seconds.',
  notEditable: 'Only a scheduled or postponed drop can be changed.',
  alreadyEnded: 'This drop has ended.',
  queueNotOpen: 'The queue for this drop is not open yet.',
  cancelled: 'This drop was cancelled.',
  postponed: 'This drop was postponed: your place is kept for the new start.',
  soldOut: 'Sold out',
  alreadyJoined: 'You are already in the queue for this drop.',
  challengeNeeded: 'Please complete the check that you are not a bot, then join again.',
  challengeFailed: 'The check that you are not a bot did not pass. Please try again.',
  notInQueue: 'You are not in the queue for this drop.',
  /** Checkout refusals (item 5). */
  admissionNeeded: (product: string) => `${product} is in a drop: join the drop's queue and buy when you are admitted.`,
  admissionEnded: 'Your time to check out for this drop has ended.',
  admissionUsed: 'You already bought in this drop.',
  overDropLimit: (limit: number) => `This drop allows ${limit} per customer.`,
  waitlistOnly: (product: string) => `${product} is sold out: units that come back go to its waitlist in order.`,
  waitlistJoined: 'You are on the waitlist. We will email you if a unit comes back.',
  notOnWaitlist: 'You are not on the waitlist for this item.',
  waitlistNotForVariant: 'Choose a variant that has stock kept by the shop.',
  /** Notify me (issue 37 part 4, decision 076): the same list, asked for signed in or by a confirmed address. */
  notifyInvalidEmail: 'Please enter a valid email address.',
  notifySent: 'Check your inbox: we sent you a link to confirm. Once confirmed, we will email you when it is back.',
  notifyConfirmed: 'Confirmed: we will email you when it is back in stock.',
  notifyLinkInvalid: 'This link is not valid or has expired. Ask to be notified again from the product page.',
  notifyLeft: 'You have left the list for this item. We will not email you about it.',
} as const;

const encoder = new TextEncoder();

function hex(bytes: ArrayBuffer): string {
  return [...new Uint8Array(bytes)].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** SHA-256 of a text, in hex: the commitment to a seed (hex text) and the hash of the entry list. */
export async function sha256Hex(text: string): Promise<string> {
  return hex(await crypto.subtle.digest('SHA-256', encoder.encode(text)));
}

/** The published pre-queue list: its entry numbers in ascending order, one per line, each line ending with "\n". */
export function entryListText(entryNumbers: readonly number[]): string {
  return [...entryNumbers]
    .sort((a, b) => a - b)
    .map((n) => `${n}\n`)
    .join('');
}

/** SHA-256 of the pre-queue's entry list (entryListText), published at the start before the seed is revealed. */
export function entryListHash(entryNumbers: readonly number[]): Promise<string> {
  return sha256Hex(entryListText(entryNumbers));
}

/** HMAC-SHA256(seed, decimal entry number) in hex; the seed is the hex text's UTF-8 bytes. */
export async function entryKey(seed: string, entryNumber: number): Promise<string> {
  const key = await crypto.subtle.importKey('raw', encoder.encode(seed), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return hex(await crypto.subtle.sign('HMAC', key, encoder.encode(String(entryNumber))));
}

/**
 * The pre-queue in its fair order: entry numbers sorted by HMAC-SHA256(seed, number), as hex
 * text ascending (ties, never seen in practice, by number). Position p (from 1) is the p-th.
 */
export async function fairOrder(seed: string, entryNumbers: readonly number[]): Promise<number[]> {
  const key = await crypto.subtle.importKey('raw', encoder.encode(seed), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const keyed = await Promise.all(entryNumbers.map(async (n) => ({ n, k: hex(await crypto.subtle.sign('HMAC', key, encoder.encode(String(n)))) })));
  keyed.sort((a, b) => (a.k < b.k ? -1 : a.k > b.k ? 1 : a.n - b.n));
  return keyed.map((entry) => entry.n);
}

/**
 * One entry's position from the revealed seed and the pre-queue's size alone (decision 073):
 * what a fan's page computes at the start instead of asking the server, the same as the
 * positions the start wrote.
 */
export async function positionFromSeed(seed: string, preQueueCount: number, entryNumber: number): Promise<number | null> {
  if (entryNumber > preQueueCount) return entryNumber;
  const order = await fairOrder(
    seed,
    Array.from({ length: preQueueCount }, (_, index) => index + 1),
  );
  return positionOf(order, preQueueCount, entryNumber);
}

/**
 * Every entry's position: the pre-queue (numbers 1..preQueueCount) in fair order, then later
 * arrivals in join order (entry n > preQueueCount has position n).
 */
export function positionOf(order: readonly number[], preQueueCount: number, entryNumber: number): number | null {
  if (entryNumber > preQueueCount) return entryNumber;
  const index = order.indexOf(entryNumber);
  return index < 0 ? null : index + 1;
}

/**
 * How many fans one admission round may admit (decision 066): each admission sets aside the
 * drop's per-customer limit, so only while (units left - units set aside) >= limit; when
 * fewer than a limit's worth is left and nobody is admitted, one more fan is admitted for
 * the rest. Never more than `maxAdmitted` at once, nor more than `perMinute` within the last
 * minute. `unitsLeft` null: the drop's variants keep no stock count (unlimited).
 */
export function admissionsAllowed(input: {
  unitsLeft: number | null;
  admittedNow: number;
  perCustomerLimit: number;
  maxAdmitted: number;
  perMinute: number;
  admittedLastMinute: number;
  waiting: number;
}): number {
  const byCapacity = input.maxAdmitted - input.admittedNow;
  const byRate = input.perMinute - input.admittedLastMinute;
  let byStock = Number.POSITIVE_INFINITY;
  if (input.unitsLeft !== null) {
    const free = input.unitsLeft - input.admittedNow * input.perCustomerLimit;
    byStock = free >= input.perCustomerLimit ? Math.floor(free / input.perCustomerLimit) : free > 0 && input.admittedNow === 0 ? 1 : 0;
  }
  return Math.max(0, Math.min(byCapacity, byRate, byStock, input.waiting));
}

/** Whether the drop is sold out: no unit of its variants is left to sell (held units are not left). */
export function isSoldOut(unitsLeft: number | null): boolean {
  return unitsLeft !== null && unitsLeft <= 0;
}

/** Estimated seconds until a fan at `position` is admitted, at the drop's admission rate; 0 when served. */
export function estimatedWaitSeconds(position: number, nowServing: number, perMinute: number): number {
  const ahead = Math.max(0, position - nowServing);
  if (ahead === 0) return 0;
  return Math.ceil((ahead / Math.max(1, perMinute)) * 60);
}

/** Median and 95th percentile (nearest rank) of waits in seconds; null when there are none. */
export function waitPercentiles(waits: readonly number[]): { median: number | null; p95: number | null } {
  if (waits.length === 0) return { median: null, p95: null };
  const sorted = [...waits].sort((a, b) => a - b);
  const rank = (p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
  return { median: rank(0.5), p95: rank(0.95) };
}

/**
 * Whether admissions followed the order: the admitted positions, taken in admission order
 * (time, then position), never go back, so no fan was admitted before one ahead of them who
 * was still waiting. Returns the share in order (1 when there are none).
 */
export function shareInOrder(admissions: readonly { position: number; batch: number }[]): number {
  if (admissions.length === 0) return 1;
  const sorted = [...admissions].sort((a, b) => a.batch - b.batch || a.position - b.position);
  let highest = 0;
  let inOrder = 0;
  for (const admission of sorted) {
    if (admission.position > highest) inOrder += 1;
    highest = Math.max(highest, admission.position);
  }
  return inOrder / admissions.length;
}
