import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { functionsClient } from '../../../lib/api-client.ts';
import { royaltyKeys } from '../../../lib/query-keys.ts';

export { useMyRoyalties, type PortalParty } from '../../../ui/royalties/my-royalties.ts';

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
