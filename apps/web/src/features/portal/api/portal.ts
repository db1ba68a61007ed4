import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { FunctionOutput } from '@storefront/domain/contracts/index.ts';
import { functionsClient } from '../../../lib/api-client.ts';
import { royaltyKeys } from '../../../lib/query-keys.ts';

/** A party's royalties portal (issue 36 part 6, decision 080): the caller's own parties only. */
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

export const useMyStatement = (statementId: number | null) =>
  useQuery({
    queryKey: royaltyKeys.portalStatement(statementId ?? 0),
    queryFn: ({ signal }) => functionsClient.call('getMyRoyaltyStatement', { statementId: statementId! }, { signal }),
    enabled: statementId !== null,
    retry: false,
  });

export const getMyStatementCsv = (statementId: number) => functionsClient.call('getMyRoyaltyStatementCsv', { statementId });

export const useAcceptInvitation = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (token: string) => functionsClient.call('acceptRoyaltyInvitation', { token }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: royaltyKeys.portal }),
  });
};

export const useConnectPayouts = () => useMutation({ mutationFn: (partyId: number) => functionsClient.call('connectRoyaltyPayouts', { partyId }) });
