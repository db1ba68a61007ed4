import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { subscribeLive, type LiveTopicName } from '@storefront/sdk/live.ts';
import { useSession } from './session.ts';

/**
 * Query keys by live topic: an event refetches what it names (spec section 7, "Live").
 * Features build their query keys from these prefixes.
 */
export const LIVE_QUERY_KEYS: Record<LiveTopicName, readonly unknown[][]> = {
  products: [['products'], ['product']],
  profile: [['me'], ['profile']],
  // The checkout's quote applies the wallet: a grant, hold or release elsewhere re-prices it.
  wallet: [['wallet'], ['product', 'checkout-quote']],
  orders: [['orders', 'mine'], ['order']],
  'all-orders': [['orders', 'open'], ['orders', 'desk'], ['order-desk']],
};

/** One stream per signed-in state; reopened when the user changes. */
export function useLiveUpdates() {
  const queryClient = useQueryClient();
  const { user, isLoading } = useSession();
  const userId = user?.id ?? null;
  useEffect(() => {
    if (isLoading) return undefined;
    const refetch = (topic: LiveTopicName) => {
      for (const queryKey of LIVE_QUERY_KEYS[topic]) void queryClient.invalidateQueries({ queryKey });
    };
    let opened = false;
    const subscription = subscribeLive({
      onEvent: (topic) => refetch(topic),
      // After a reconnect, anything may have changed while the stream was down.
      onOpen: () => {
        if (opened) for (const topic of Object.keys(LIVE_QUERY_KEYS) as LiveTopicName[]) refetch(topic);
        opened = true;
      },
    });
    return () => subscription.close();
  }, [queryClient, userId, isLoading]);
}
