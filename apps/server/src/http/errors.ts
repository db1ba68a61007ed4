import type { FunctionErrorCode } from '@storefront/domain/errors.ts';

/** A failure the caller is meant to see: its code picks the HTTP status (spec section 8). */
export class AppError extends Error {
  readonly code: FunctionErrorCode;
  readonly details: unknown;

  constructor(code: FunctionErrorCode, message: string, details?: unknown) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.details = details;
  }
}
