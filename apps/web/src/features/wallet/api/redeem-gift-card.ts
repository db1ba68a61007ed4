import { useMutation, useQueryClient } from '@tanstack/react-query';
import { functionsClient } from '../../../lib/api-client.ts';
import { walletKeys } from '../../../lib/query-keys.ts';

/** Redeems a gift card code as wallet credit (issue 27, decision 053); the wallet and its history refetch. */
export function useRedeemGiftCard() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (code: string) => functionsClient.call('redeemGiftCard', { code }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: walletKeys.all }),
  });
}
