import { queryOptions, useQuery } from '@tanstack/react-query';
import type { FunctionOutput } from '@storefront/domain/contracts/index.ts';
import { functionsClient } from '../../../lib/api-client.ts';
import { savedAddressesKeys } from '../../../lib/query-keys.ts';
import type { ShippingValues } from '../checkout-form-values.ts';

/** A shipping address used before, the last used first (the listSavedAddresses contract). */
export type SavedAddress = FunctionOutput<'listSavedAddresses'>['addresses'][number];

// A new order (live 'orders' topic) may have added one.
export const savedAddressesQueryOptions = () =>
  queryOptions({
    queryKey: savedAddressesKeys.all,
    queryFn: ({ signal }) => functionsClient.call('listSavedAddresses', null, { signal }).then((r) => r.addresses),
  });

export function useSavedAddresses() {
  return useQuery(savedAddressesQueryOptions());
}

/** "Ann Buyer, 1 Main St, Springfield IL 62701, US" */
export function addressLabel(address: ShippingValues): string {
  return [address.name, address.line1, address.line2, `${address.city} ${address.state} ${address.postal_code}`.replace(/\s+/g, ' ').trim(), address.country]
    .filter(Boolean)
    .join(', ');
}
