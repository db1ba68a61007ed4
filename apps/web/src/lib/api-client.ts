import { createFunctionsClient } from '@storefront/sdk/callable.ts';

/** A non-2xx answer from one of our JSON endpoints. */
export class HttpError extends Error {
  readonly status: number;

  constructor(status: number, message: string) {
    super(message);
    this.name = 'HttpError';
    this.status = status;
  }
}

/** GETs a same-origin JSON endpoint such as `/api/site`. */
export async function getJson<T>(path: string, options: { signal?: AbortSignal } = {}): Promise<T> {
  const response = await fetch(path, {
    headers: { accept: 'application/json' },
    credentials: 'same-origin',
    signal: options.signal ?? null,
  });
  if (!response.ok) {
    const body: unknown = await response.json().catch(() => undefined);
    throw new HttpError(response.status, errorMessage(body) ?? `Request failed (${response.status}).`);
  }
  return (await response.json()) as T;
}

/**
 * Like getJson, but a 404 (nothing there yet, such as a content page a new shop has not
 * written) is null, so a page can tell empty from failed.
 */
export async function getJsonOrNull<T>(path: string, options: { signal?: AbortSignal } = {}): Promise<T | null> {
  try {
    return await getJson<T>(path, options);
  } catch (error) {
    if (error instanceof HttpError && error.status === 404) return null;
    throw error;
  }
}

function errorMessage(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null || !('error' in body)) return undefined;
  const error = body.error;
  if (typeof error !== 'object' || error === null || !('message' in error)) return undefined;
  return typeof error.message === 'string' ? error.message : undefined;
}

/** Callable functions (`POST /fn/<name>`), same origin, authenticated by the session cookie. */
export const functionsClient = createFunctionsClient();
