import { queryOptions, useQuery } from '@tanstack/react-query';
import type { FunctionOutput } from '@storefront/domain/contracts/index.ts';
import { FunctionsError } from '@storefront/sdk/callable.ts';
import { functionsClient } from '../../../lib/api-client.ts';
import { isFinalWalletError } from './get-wallet.ts';
import { walletKeys } from '../../../lib/query-keys.ts';

/** A DAT asset (spec section 3) with the editions the signed-in user owns. */
export type DatDetail = FunctionOutput<'getDat'>;

export function getDat(id: string, signal?: AbortSignal): Promise<DatDetail> {
  return functionsClient.call('getDat', { id }, { signal });
}

/** The server's answer for an id that is no DAT; an id it will not even look up (too long) is none either. */
export function isDatNotFound(error: unknown): boolean {
  return error instanceof FunctionsError && (error.code === 'not-found' || error.code === 'invalid-argument');
}

// Same shape as get-product.ts's productQueryOptions by design: another call, key and not-found rule.
// Under the wallet's key: the live 'wallet' topic refetches it with the wallet.
export const datQueryOptions = (id: string) =>
  queryOptions({
    queryKey: walletKeys.dat(id),
    queryFn: ({ signal }) => getDat(id, signal),
    retry: (failureCount, error) => !isFinalWalletError(error) && failureCount < 1,
  });

export function useDat(id: string) {
  return useQuery(datQueryOptions(id));
}
