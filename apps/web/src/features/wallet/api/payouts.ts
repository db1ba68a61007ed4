import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { functionsClient } from '../../../lib/api-client.ts';

/** Cash-out figures: what may be paid out, the account's state, and past requests. */
export interface Cashout {
  hasAccount: boolean;
  payoutsEnabled: boolean;
  availableCents: number;
  requests: { id: string; amountCents: number; status: 'requested' | 'paid' | 'failed'; createdAt: string }[];
}

// Under ['wallet'] so the live wallet topic refreshes it too.
export const cashoutQueryOptions = () =>
  queryOptions({
    queryKey: ['wallet', 'cashout'],
    queryFn: ({ signal }) => functionsClient.call<Cashout>('getCashout', null, { signal }),
    staleTime: 0,
  });

export function useCashout() {
  return useQuery(cashoutQueryOptions());
}

/** Creates (once) the payout account and opens the provider's onboarding in a new tab. */
export async function openPayoutOnboarding(): Promise<void> {
  // Opened at once, inside the click, so pop-up blockers let it through; pointed at the link after.
  const tab = window.open('about:blank', '_blank');
  try {
    const { url } = await functionsClient.call<{ url: string }>('createStripeOnboardingLinkIOS', null);
    if (tab) {
      tab.opener = null;
      tab.location.href = url;
    } else {
      window.location.assign(url);
    }
  } catch (error) {
    tab?.close();
    throw error;
  }
}

export function useRequestPayout() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (amountCents?: number) => functionsClient.call<{ ok: true; payout: { id: string; amountCents: number } }>('requestPayout', amountCents ? { amountCents } : null),
    onSettled: () => queryClient.invalidateQueries({ queryKey: ['wallet'] }),
  });
}
