import { describe, expect, it } from 'vitest';
import { FUNCTION_ERROR_CODES } from '@storefront/domain/errors.ts';
import { CALLABLE_MESSAGES } from '@storefront/domain/messages.ts';
import { StorageError } from '@storefront/domain/storage.ts';
import { AuthError } from '@storefront/sdk/auth.ts';
import { createFunctionsClient, FunctionsError } from '@storefront/sdk/callable.ts';
import { HttpError } from './api-client.ts';
import { ERROR_SENTENCES, errorSentence, UNREACHABLE, withReason } from './error-message.ts';

const isSentence = (text: string) => /^[A-Z].*\s.*[.!?]$/.test(text);

describe('errorSentence: what a person reads for a failed call (issue 17)', () => {
  it.each(FUNCTION_ERROR_CODES)('%s, sent as a bare code, becomes a sentence', (code) => {
    const text = errorSentence(new FunctionsError(code, code));
    expect(text).toBe(ERROR_SENTENCES[code]);
    expect(isSentence(text)).toBe(true);
    expect(text).not.toContain(code.includes('-') ? code : `${code}.`);
  });

  it("turns the client's own timeout into a sentence", async () => {
    // A server that never answers: only the client's timer ends the call.
    const hang = (_url: unknown, init?: RequestInit) =>
      new Promise<Response>((_resolve, reject) => init?.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError'))));
    const client = createFunctionsClient({ timeoutMs: 5, fetch: hang as typeof fetch });
    const error = await client.callUntyped('placeOrder', {}).catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(FunctionsError);
    expect((error as FunctionsError).message).toBe(CALLABLE_MESSAGES.deadlineExceeded);
    expect(withReason('Could not place order.', error)).toBe('Could not place order. The shop took too long to answer. Please try again.');
  });

  it('says the shop could not be reached when no answer came at all', async () => {
    const client = createFunctionsClient({ fetch: () => Promise.reject(new TypeError('Failed to fetch')) });
    expect(errorSentence(await client.callUntyped('x', {}).catch((failure: unknown) => failure))).toBe(UNREACHABLE);
    expect(errorSentence(new TypeError('Failed to fetch'))).toBe(UNREACHABLE);
  });

  it.each([
    [
      "the server's sentence",
      new FunctionsError('failed-precondition', 'Your wallet balance changed. Please review the total.'),
      'Your wallet balance changed. Please review the total.',
    ],
    ['a spec message without a full stop', new FunctionsError('already-exists', 'Username already taken'), 'Username already taken'],
    ['an upper-case status name', new FunctionsError('unavailable', 'UNAVAILABLE'), ERROR_SENTENCES.unavailable],
    ["the client's technical text", new FunctionsError('internal', CALLABLE_MESSAGES.missingData), ERROR_SENTENCES.internal],
    ['a hidden 5xx text', new FunctionsError('internal', 'Internal error: connection reset'), ERROR_SENTENCES.internal],
    ['an auth error', new AuthError(401, 'INVALID_EMAIL_OR_PASSWORD', 'Invalid email or password'), 'Invalid email or password'],
    ['a storage error', new StorageError('unauthorized', 'User does not have permission to access this object.', 403), 'User does not have permission to access this object.'],
    ['an HTTP 503 with a body text', new HttpError(503, 'upstream down'), ERROR_SENTENCES.unavailable],
    ['something else', new Error('boom'), ERROR_SENTENCES.unknown],
  ])('shows %s', (_name, error, text) => expect(errorSentence(error)).toBe(text));

  it("uses the page's fallback only where the server said nothing a person can use", () => {
    expect(errorSentence(new FunctionsError('internal', 'internal'), 'Signup failed')).toBe('Signup failed');
    expect(errorSentence(new AuthError(401, 'X', ''), 'Invalid email or password')).toBe('Invalid email or password');
    expect(errorSentence(new FunctionsError('deadline-exceeded', 'deadline-exceeded'), 'Signup failed')).toBe(ERROR_SENTENCES['deadline-exceeded']);
  });
});
