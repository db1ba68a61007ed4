/**
 * The error codes of callable functions and how they travel over HTTP
 * (spec section 8, "Function errors by HTTP status").
 */
export const FUNCTION_ERROR_CODES = [
  'ok',
  'cancelled',
  'unknown',
  'invalid-argument',
  'deadline-exceeded',
  'not-found',
  'already-exists',
  'permission-denied',
  'resource-exhausted',
  'failed-precondition',
  'aborted',
  'out-of-range',
  'unimplemented',
  'internal',
  'unavailable',
  'data-loss',
  'unauthenticated',
] as const;

export type FunctionErrorCode = (typeof FUNCTION_ERROR_CODES)[number];

/** The spec's table, read from the client's side: HTTP status -> code. */
export function codeForHttpStatus(status: number): FunctionErrorCode {
  if (status >= 200 && status < 300) return 'ok';
  switch (status) {
    case 0:
      return 'internal';
    case 400:
      return 'invalid-argument';
    case 401:
      return 'unauthenticated';
    case 403:
      return 'permission-denied';
    case 404:
      return 'not-found';
    case 409:
      return 'aborted';
    case 429:
      return 'resource-exhausted';
    case 499:
      return 'cancelled';
    case 500:
      return 'internal';
    case 501:
      return 'unimplemented';
    case 503:
      return 'unavailable';
    case 504:
      return 'deadline-exceeded';
    default:
      return 'unknown';
  }
}

/** The server's side: the HTTP status a thrown code is sent with. */
export function httpStatusForCode(code: FunctionErrorCode): number {
  switch (code) {
    case 'ok':
      return 200;
    case 'invalid-argument':
    case 'failed-precondition':
    case 'out-of-range':
      return 400;
    case 'unauthenticated':
      return 401;
    case 'permission-denied':
      return 403;
    case 'not-found':
      return 404;
    case 'aborted':
    case 'already-exists':
      return 409;
    case 'resource-exhausted':
      return 429;
    case 'cancelled':
      return 499;
    case 'unimplemented':
      return 501;
    case 'unavailable':
      return 503;
    case 'deadline-exceeded':
      return 504;
    case 'unknown':
    case 'internal':
    case 'data-loss':
      return 500;
  }
}

/** 'invalid-argument' <-> 'INVALID_ARGUMENT', the form used in the error body. */
export function statusNameForCode(code: FunctionErrorCode): string {
  return code.toUpperCase().replaceAll('-', '_');
}

export function codeForStatusName(name: unknown): FunctionErrorCode | undefined {
  if (typeof name !== 'string') return undefined;
  const code = name.toLowerCase().replaceAll('_', '-');
  return (FUNCTION_ERROR_CODES as readonly string[]).includes(code) ? (code as FunctionErrorCode) : undefined;
}

/** Body of a failed call: `{"error": {"status": "INVALID_ARGUMENT", "message": "..."}}`. */
export interface FunctionErrorBody {
  error: { status: string; message: string; details?: unknown };
}

/**
 * A function error with its code and details, as the spec's section 8 defines it: thrown by the
 * server as AppError (apps/server/src/http/errors.ts) and read back by the sdk as FunctionsError
 * (packages/sdk/src/callable.ts). One shape for both ends; each end keeps its own class (and
 * name), so `instanceof` still tells a server-side error from one a client received.
 */
export class FunctionErrorBase extends Error {
  readonly code: FunctionErrorCode;
  readonly details: unknown;

  constructor(code: FunctionErrorCode, message: string, details?: unknown) {
    super(message);
    this.code = code;
    this.details = details;
  }
}
