import { codeForHttpStatus, codeForStatusName, FunctionErrorBase } from '@storefront/domain/errors.ts';
import type { FunctionInput, FunctionName, FunctionOutput } from '@storefront/domain/contracts/index.ts';
import { CALLABLE_MESSAGES } from '@storefront/domain/messages.ts';

/** The default time a call may take before it fails with deadline-exceeded (spec section 7). */
export const DEFAULT_CALL_TIMEOUT_MS = 70_000;

/** A failed call as the client reads it: the code, sentence and details the server sent (spec section 8). */
export class FunctionsError extends FunctionErrorBase {
  override readonly name = 'FunctionsError';
}

export interface FunctionsClientOptions {
  /** Origin of the server, e.g. `http://127.0.0.1:3000`; empty for same-origin calls in a browser. */
  baseUrl?: string;
  /** Returns the bearer token to send, or null to rely on the session cookie. */
  getAuthToken?: () => string | null | undefined | Promise<string | null | undefined>;
  timeoutMs?: number;
  fetch?: typeof fetch;
}

export interface CallOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
}

/**
 * Typed by function name from the contract table (decision 025): what `data` may be and
 * what the call answers come from packages/domain/src/contracts, never written by hand.
 * Type-only import: the client does not load zod.
 */
export interface FunctionsClient {
  call<N extends FunctionName>(name: N, data: FunctionInput<N>, options?: CallOptions): Promise<FunctionOutput<N>>;
  /** Any name and any data, unchecked: for tests of the protocol and functions outside the table. */
  callUntyped<Res = unknown>(name: string, data: unknown, options?: CallOptions): Promise<Res>;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Reads a failed response the way the callable protocol defines it. */
function errorFromResponse(status: number, body: unknown): FunctionsError | undefined {
  let code = codeForHttpStatus(status);
  let message: string = code;
  let details: unknown;
  if (isObject(body) && isObject(body.error)) {
    const named = codeForStatusName(body.error.status);
    if (named) {
      // The body names the code exactly (e.g. failed-precondition travels as 400).
      code = named;
      message = named;
    }
    if (typeof body.error.message === 'string') message = body.error.message;
    details = body.error.details;
  }
  return code === 'ok' ? undefined : new FunctionsError(code, message, details);
}

export function createFunctionsClient(options: FunctionsClientOptions = {}): FunctionsClient {
  const baseUrl = (options.baseUrl ?? '').replace(/\/$/, '');
  const fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);

  async function callUntyped<Res>(name: string, data: unknown, callOptions: CallOptions = {}): Promise<Res> {
    const timeoutMs = callOptions.timeoutMs ?? options.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    const token = await options.getAuthToken?.();
    if (token) headers.authorization = `Bearer ${token}`;

    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const onAbort = () => controller.abort();
    // An already-aborted signal never fires 'abort': check it, or the call would go out.
    if (callOptions.signal?.aborted) controller.abort();
    else callOptions.signal?.addEventListener('abort', onAbort, { once: true });

    let response: Response;
    let body: unknown;
    try {
      response = await fetchImpl(`${baseUrl}/fn/${encodeURIComponent(name)}`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ data: data ?? null }),
        credentials: 'include',
        signal: controller.signal,
      });
      body = await response.json().catch(() => undefined);
      // Aborted (timer or caller) while the body was arriving: not a bad body.
      if (controller.signal.aborted) throw new Error('aborted while reading the body');
    } catch (cause) {
      if (timedOut) throw new FunctionsError('deadline-exceeded', CALLABLE_MESSAGES.deadlineExceeded);
      if (callOptions.signal?.aborted) throw new FunctionsError('cancelled', 'cancelled');
      // No HTTP answer at all: status 0 in the spec's table.
      throw new FunctionsError('internal', 'internal', cause);
    } finally {
      clearTimeout(timer);
      callOptions.signal?.removeEventListener('abort', onAbort);
    }

    const error = errorFromResponse(response.status, body);
    if (error) throw error;
    if (!isObject(body)) throw new FunctionsError('internal', CALLABLE_MESSAGES.notJsonObject);
    if (!('data' in body)) throw new FunctionsError('internal', CALLABLE_MESSAGES.missingData);
    return body.data as Res;
  }

  // The same function: `call` differs only in its types.
  return { call: callUntyped, callUntyped };
}
