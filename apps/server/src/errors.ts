import { FunctionErrorBase } from '@storefront/domain/errors.ts';

/** A failure the caller is meant to see: its code picks the HTTP status (spec section 8). */
export class AppError extends FunctionErrorBase {
  override readonly name = 'AppError';
}
