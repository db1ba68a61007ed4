import type { Db } from '../db/client.ts';
import { rateLimitSubject } from '../http/client-address.ts';
import { AppError } from '../errors.ts';
import { countHit, giveBackHit, RATE_LIMIT_MESSAGE } from '../http/rate-limit.ts';

/** Discount code attempts a minute (issue 40 item 2): guessing codes is slow, whatever instance answers. */
export const CODE_ATTEMPTS_PER_ACCOUNT = 10;
export const CODE_ATTEMPTS_PER_ADDRESS = 30;

export const codeAttemptRefused = RATE_LIMIT_MESSAGE;

/** The counters one attempt hit, to give back if the code applied. */
export interface CodeAttempt {
  keys: string[];
}

/**
 * Counts a typed code against the limits before it is judged, so a burst of guesses is cut at
 * the limit whatever the codes are; a code that then applies gives its attempt back (a shopper
 * re-quoting with their code is not guessing). undefined: no code typed. 'refused': over a
 * limit (or thrown, for orders and checkouts).
 */
export async function codeAttempt(
  db: Db,
  userId: string,
  ip: string,
  typed: string | undefined,
  options: { throwWhenRefused?: boolean } = {},
): Promise<CodeAttempt | 'refused' | undefined> {
  if (!typed?.trim()) return undefined;
  const account = `discount-code:${userId}`;
  const address = `discount-code-ip:${rateLimitSubject(ip)}`;
  const refused = (await countHit(db, account, 60)) > CODE_ATTEMPTS_PER_ACCOUNT || (await countHit(db, address, 60)) > CODE_ATTEMPTS_PER_ADDRESS;
  if (!refused) return { keys: [account, address] };
  if (options.throwWhenRefused) throw new AppError('resource-exhausted', codeAttemptRefused, { discountCode: codeAttemptRefused });
  return 'refused';
}

export async function giveBackCodeAttempt(db: Db, attempt: CodeAttempt): Promise<void> {
  await giveBackHit(db, attempt.keys);
}
