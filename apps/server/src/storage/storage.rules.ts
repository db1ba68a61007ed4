import { isMasterPath, isPublicImagePath } from '@storefront/domain/storage-paths.ts';
import type { Caller } from '../functions/registry.ts';
import { storageErrors } from './storage.errors.ts';

/**
 * Who may do what (the spec leaves storage rules to us): product and content-page images
 * are public to read; only admins write, and only under `products/`, `content/` and
 * `masters/` (digital releases' lossless masters, issue 28);
 * everything else is admins' only.
 * Anonymous callers who would need an account get 401, signed-in ones 403.
 */
export function authorizeRead(caller: Caller | null, path: string): void {
  if (isPublicImagePath(path)) return;
  if (!caller) throw storageErrors.unauthenticated();
  if (!caller.isAdmin) throw storageErrors.unauthorized(path);
}

export function authorizeWrite(caller: Caller | null, path: string): asserts caller is Caller {
  if (!caller) throw storageErrors.unauthenticated();
  if (!caller.isAdmin || !(isPublicImagePath(path) || isMasterPath(path))) throw storageErrors.unauthorized(path);
}
