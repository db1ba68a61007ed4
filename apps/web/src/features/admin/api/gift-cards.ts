import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { FunctionOutput } from '@storefront/domain/contracts/index.ts';
import type { GiftCardState } from '@storefront/domain/gift-card-schemas.ts';
import { functionsClient } from '../../../lib/api-client.ts';
import { giftCardKeys } from '../../../lib/query-keys.ts';
import { activityQueryOptions } from './admin-activity.ts';

/** A gift card as the console lists it (issue 40 item 3). */
export type GiftCardRow = FunctionOutput<'listGiftCards'>['cards'][number];

/** The gift cards that exist, newest first: all, or those in one state. */
export function useGiftCards(status: GiftCardState | null) {
  return useQuery({
    queryKey: giftCardKeys.list(status),
    queryFn: () => functionsClient.call('listGiftCards', { status }),
    placeholderData: keepPreviousData,
    refetchOnWindowFocus: true,
  });
}

/** Sends a sold card's mail to its recipient again (same code). */
export function useResendGiftCard() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (giftCardId: string) => functionsClient.call('resendGiftCard', { giftCardId }),
    onSettled: () => {
      void queryClient.invalidateQueries({ queryKey: giftCardKeys.all });
      void queryClient.invalidateQueries({ queryKey: activityQueryOptions().queryKey });
    },
  });
}
