import { AuthError } from '@storefront/sdk/auth.ts';
import { FunctionsError } from '@storefront/sdk/callable.ts';
import { ACCOUNT_TEXTS } from './messages.ts';

/**
 * The text to show for a failed account call: the server's own message (spec section 8:
 * "auth error message inline"), or the fallback when the server gave none worth showing.
 */
export function errorMessage(error: unknown, fallback: string): string {
  if (error instanceof AuthError) return error.message || fallback;
  if (error instanceof FunctionsError) {
    // 'internal' covers both a hidden 5xx text and no answer at all.
    return error.code === 'internal' || error.code === 'unknown' ? fallback : error.message;
  }
  // fetch() rejects with a TypeError when the server cannot be reached.
  if (error instanceof TypeError) return ACCOUNT_TEXTS.unreachable;
  return fallback;
}
