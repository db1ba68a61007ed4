import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { FunctionInput, FunctionOutput } from '@storefront/domain/contracts/index.ts';
import { functionsClient } from '../../../lib/api-client.ts';
import { accountKeys, savedAddressesKeys } from '../../../lib/query-keys.ts';
import { meQueryOptions, resetUserValues } from '../../../lib/session.ts';

/** The account page's reads and changes (issue 17, decision 032). */
export const accountProfileQueryOptions = () =>
  queryOptions({
    queryKey: accountKeys.profile,
    queryFn: ({ signal }) => functionsClient.call('getProfile', null, { signal }),
  });

export const deletionSummaryQueryOptions = () =>
  queryOptions({
    queryKey: accountKeys.deletion,
    queryFn: ({ signal }) => functionsClient.call('getDeletionSummary', null, { signal }),
  });

/**
 * The saved addresses, under the checkout's key (the same query: a delete here updates the
 * checkout's select, and a new order's 'orders' event refetches both).
 */
export const accountAddressesQueryOptions = () =>
  queryOptions({
    queryKey: savedAddressesKeys.all,
    queryFn: ({ signal }) => functionsClient.call('listSavedAddresses', null, { signal }).then((r) => r.addresses),
  });

export type SavedAddress = FunctionOutput<'listSavedAddresses'>['addresses'][number];

export const useSavedAddresses = () => useQuery(accountAddressesQueryOptions());

/** "Ann Buyer, 1 Main St, Springfield IL 62701, US" (as the checkout shows it). */
export function addressLabel(address: SavedAddress): string {
  return [address.name, address.line1, address.line2, `${address.city} ${address.state} ${address.postal_code}`.replace(/\s+/g, ' ').trim(), address.country]
    .filter(Boolean)
    .join(', ');
}

export const useAccountProfile = () => useQuery(accountProfileQueryOptions());
export const useDeletionSummary = () => useQuery(deletionSummaryQueryOptions());

/** `onSaved` runs before the refetch, which may remount the form that asked. */
export function useUpdateProfile(onSaved: () => void) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: FunctionInput<'updateProfile'>) => functionsClient.call('updateProfile', input),
    onSuccess: async () => {
      onSaved();
      await queryClient.invalidateQueries({ queryKey: accountKeys.profile });
      await queryClient.invalidateQueries({ queryKey: meQueryOptions().queryKey });
    },
  });
}

export function useChangePassword() {
  return useMutation({ mutationFn: (input: FunctionInput<'changePassword'>) => functionsClient.call('changePassword', input) });
}

export function useRequestEmailChange() {
  return useMutation({ mutationFn: (input: FunctionInput<'requestEmailChange'>) => functionsClient.call('requestEmailChange', input) });
}

export function useConfirmEmailChange() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (token: string) => functionsClient.call('confirmEmailChange', { token }),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: accountKeys.profile });
      await queryClient.invalidateQueries({ queryKey: meQueryOptions().queryKey });
    },
  });
}

export function useDeleteSavedAddress() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => functionsClient.call('deleteSavedAddress', { id }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: savedAddressesKeys.all }),
  });
}

/** Deletes the account; this browser then forgets the user (every session has ended). */
export function useDeleteAccount() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: FunctionInput<'deleteAccount'>) => functionsClient.call('deleteAccount', input),
    onSuccess: () => resetUserValues(queryClient, null),
  });
}

/** Asks for the caller's data and saves it as a JSON file. */
export function useDownloadMyData() {
  return useMutation({
    mutationFn: async () => {
      const data = await functionsClient.call('exportMyData', null);
      const blob = new Blob([JSON.stringify(data, null, 2)], { type: 'application/json' });
      const url = URL.createObjectURL(blob);
      const link = document.createElement('a');
      link.href = url;
      link.download = `street-flavor-records-my-data-${data.exportedAt.slice(0, 10)}.json`;
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
      return data;
    },
  });
}
