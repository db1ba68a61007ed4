import { useQuery } from '@tanstack/react-query';
import type { FunctionOutput } from '@storefront/domain/contracts/index.ts';
import { functionsClient } from '../../lib/api-client.ts';
import { royaltyKeys } from '../../lib/query-keys.ts';

/**
 * The signed-in account's royalty parties (issue 36 part 6, decision 080): the portal's data, and
 * My account's link to it (shown only to an account that holds a party). None for a shopper.
 */
export type PortalParty = FunctionOutput<'getMyRoyalties'>['parties'][number];

/** Sales are live: asked again every minute while the page is open, and when the visitor comes back to it. */
export const useMyRoyalties = (enabled: boolean) =>
  useQuery({
    queryKey: royaltyKeys.portal,
    queryFn: ({ signal }) => functionsClient.call('getMyRoyalties', null, { signal }),
    enabled,
    refetchInterval: 60_000,
    refetchOnWindowFocus: true,
  });
