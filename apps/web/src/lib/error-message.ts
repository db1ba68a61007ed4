import type { FunctionErrorCode } from '@storefront/domain/errors.ts';
import { CALLABLE_MESSAGES } from '@storefront/domain/messages.ts';
import { StorageError } from '@storefront/domain/storage-error.ts';
import { AuthError } from '@storefront/sdk/auth.ts';
import { FunctionsError } from '@storefront/sdk/callable.ts';
import { HttpError } from './api-client.ts';

/**
 * The one place that turns a failed call into what a person reads: always a sentence,
 * never a raw code such as "deadline-exceeded" (issue 17). Every code of the callable
 * client has its sentence; the server's own message is shown when it wrote one for people.
 */
export const ERROR_SENTENCES: Record<FunctionErrorCode, string> = {
  ok: 'Something went wrong. Please try again.',
  cancelled: 'The request was cancelled before it finished. Please try again.',
  unknown: 'Something went wrong. Please try again.',
  'invalid-argument': 'Some of the details were not accepted. Please check them and try again.',
  'deadline-exceeded': 'The shop took too long to answer. Please try again.',
  'not-found': 'We could not find what you asked for. It may have been removed.',
  'already-exists': 'That already exists.',
  'permission-denied': 'Your account is not allowed to do that.',
  'resource-exhausted': 'Too many attempts in a short time. Please wait a minute and try again.',
  'failed-precondition': 'Something changed in the meantime. Please check the page and try again.',
  aborted: 'Someone else changed this at the same moment. Please try again.',
  'out-of-range': 'A value is out of range. Please check it and try again.',
  unimplemented: 'This is not available yet.',
  internal: 'Something went wrong on our side. Please try again.',
  unavailable: 'The shop is not available at the moment. Please try again in a minute.',
  'data-loss': 'Something went wrong on our side. Please try again.',
  unauthenticated: 'Your session has ended. Please log in again.',
};

export const UNREACHABLE = 'Could not reach the shop. Please check your connection and try again.';

/** Codes whose text the server hides (5xx), or that have no text meant for people. */
const HIDDEN: ReadonlySet<FunctionErrorCode> = new Set(['internal', 'unknown', 'data-loss', 'ok']);
const TECHNICAL: ReadonlySet<string> = new Set(Object.values(CALLABLE_MESSAGES));

/** A code ("deadline-exceeded", "UNAVAILABLE"), the client's technical texts or nothing: not for people. */
function isForPeople(message: string): boolean {
  const text = message.trim();
  return /\s/.test(text) && !TECHNICAL.has(text);
}

const HTTP_CODES: Record<number, FunctionErrorCode> = {
  400: 'invalid-argument',
  401: 'unauthenticated',
  403: 'permission-denied',
  404: 'not-found',
  409: 'aborted',
  429: 'resource-exhausted',
  503: 'unavailable',
  504: 'deadline-exceeded',
};

/**
 * The sentence for a failed call. `fallback` replaces the generic sentence when the
 * server said nothing a person can use (a hidden 5xx, an unknown failure), for pages
 * whose spec message says it better ('Signup failed', 'Unable to save changes.').
 */
export function errorSentence(error: unknown, fallback?: string): string {
  if (error instanceof FunctionsError) {
    // No HTTP answer at all (the client reports status 0 as 'internal').
    if (error.code === 'internal' && error.details instanceof TypeError) return UNREACHABLE;
    if (HIDDEN.has(error.code)) return fallback ?? ERROR_SENTENCES[error.code];
    return isForPeople(error.message) ? error.message : ERROR_SENTENCES[error.code];
  }
  if (error instanceof AuthError || error instanceof StorageError || error instanceof HttpError) {
    if (isForPeople(error.message) && !(error instanceof HttpError && error.status >= 500)) return error.message;
    if (fallback) return fallback;
    const code = error instanceof StorageError ? undefined : HTTP_CODES[error.status];
    return ERROR_SENTENCES[code ?? 'unknown'];
  }
  // fetch() rejects with a TypeError when the server cannot be reached.
  if (error instanceof TypeError) return UNREACHABLE;
  return fallback ?? ERROR_SENTENCES.unknown;
}

/** The spec's message for what failed, then why: "Could not place order. The shop took too long to answer. Please try again." */
export function withReason(message: string, error: unknown): string {
  return `${message} ${errorSentence(error)}`;
}
