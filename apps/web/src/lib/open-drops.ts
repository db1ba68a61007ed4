import { useQuery } from '@tanstack/react-query';
import type { FunctionOutput } from '@storefront/domain/contracts/index.ts';
import { functionsClient } from './api-client.ts';
import { dropKeys } from './query-keys.ts';

export type OpenDrop = FunctionOutput<'listOpenDrops'>['drops'][number];

/**
 * Drops a fan can still meet (scheduled, postponed, live; issue 35): the shop's banner and a
 * drop product's note read them. Shared by the catalog and the drops feature, so it lives here.
 */
export const useOpenDrops = () => useQuery({ queryKey: dropKeys.open, queryFn: async () => (await functionsClient.call('listOpenDrops', null)).drops, staleTime: 60_000 });
