import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { FunctionOutput } from '@storefront/domain/contracts/index.ts';
import { functionsClient } from '../../../lib/api-client.ts';
import { dropKeys } from '../../../lib/query-keys.ts';

/** A drop as its page shows it (getDrop), the fan's own place (getMyDropState), and the fairness data. */
export type PublicDrop = FunctionOutput<'getDrop'>;
export type DropState = FunctionOutput<'getMyDropState'>;
export type DropFairness = FunctionOutput<'getDropFairness'>;
export type WaitlistEntry = FunctionOutput<'getMyWaitlists'>['entries'][number];

/** The drop page's data: the server embeds it in the page (decision 069), so the first render does not ask. */
export const dropPageQueryOptions = (slug: string) =>
  queryOptions({
    queryKey: dropKeys.page(slug),
    queryFn: () => functionsClient.call('getDrop', { slug }),
    // The queue moves by live events, read from the events themselves; the drop is read again on a change of state only.
    staleTime: 60_000,
  });

export const useDropPage = (slug: string) => useQuery(dropPageQueryOptions(slug));

/** The fan's own place; read on joining, on a status change and when "now serving" reaches them, never per event. */
export const myDropStateQueryOptions = (dropId: string) =>
  queryOptions({
    queryKey: dropKeys.mine(dropId),
    queryFn: () => functionsClient.call('getMyDropState', { dropId }),
    staleTime: Number.POSITIVE_INFINITY,
  });

/**
 * A read that every open page of a drop would make at once on one event (sold out, cancelled,
 * postponed): started at a random moment within SPREAD_MS, so thousands of pages do not ask in
 * the same instant (decision 073). The event's own news is on screen at once.
 */
const SPREAD_MS = 2000;
export function spreadOut(read: () => void): void {
  setTimeout(read, Math.random() * SPREAD_MS);
}

export const useMyDropState = (dropId: string, enabled: boolean) => useQuery({ ...myDropStateQueryOptions(dropId), enabled });

export const useDropFairness = (slug: string) =>
  useQuery({ queryKey: dropKeys.fairness(slug), queryFn: () => functionsClient.call('getDropFairness', { slug }), staleTime: 30_000 });

/** The fan's waitlists, with any unit kept for them (the waitlist mail's page and the sold-out drop page). */
export const useMyWaitlists = (enabled: boolean, pollMs: number | false = false) =>
  useQuery({
    queryKey: dropKeys.waitlists,
    queryFn: async () => (await functionsClient.call('getMyWaitlists', null)).entries,
    enabled,
    // An offer is made by the shop's minute job and told by mail; a page waiting for one looks now and then.
    refetchInterval: pollMs,
  });

export function useJoinDrop(dropId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (challenge: string | undefined) => functionsClient.call('joinDrop', { dropId, ...(challenge ? { challenge } : {}) }),
    onSuccess: (state) => queryClient.setQueryData(dropKeys.mine(dropId), state),
  });
}

export const getDropChallenge = (dropId: string) => functionsClient.call('getDropChallenge', { dropId });

export function useLeaveDrop(dropId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => functionsClient.call('leaveDrop', { dropId }),
    onSuccess: (state) => queryClient.setQueryData(dropKeys.mine(dropId), state),
  });
}

export function useWaitlistMutation(kind: 'join' | 'leave') {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (variantId: string): Promise<void> => {
      if (kind === 'join') await functionsClient.call('joinWaitlist', { variantId });
      else await functionsClient.call('leaveWaitlist', { variantId });
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: dropKeys.waitlists }),
  });
}

export const useLeaveWaitlistByLink = () => useMutation({ mutationFn: (token: string) => functionsClient.call('leaveWaitlistByLink', { token }) });
