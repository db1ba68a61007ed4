import { queryOptions, useQuery } from '@tanstack/react-query';
import { functionsClient } from '../../../lib/api-client.ts';
import type { ShippingValues } from '../checkout-form-values.ts';

/** A shipping address used before, the last used first (listSavedAddresses). */
export interface SavedAddress extends ShippingValues {
  id: string;
  lastUsedAt: string;
}

// ['orders', 'mine', 'addresses']: a new order (live 'orders' topic) may have added one.
export const savedAddressesQueryOptions = () =>
  queryOptions({
    queryKey: ['orders', 'mine', 'addresses'],
    queryFn: ({ signal }) => functionsClient.call<{ addresses: SavedAddress[] }>('listSavedAddresses', null, { signal }).then((r) => r.addresses),
  });

export function useSavedAddresses() {
  return useQuery(savedAddressesQueryOptions());
}

/** "Ann Buyer, 1 Main St, Springfield IL 62701, US" */
export function addressLabel(address: ShippingValues): string {
  return [address.name, address.line1, address.line2, `${address.city} ${address.state} ${address.postal_code}`.replace(/\s+/g, ' ').trim(), address.country].filter(Boolean).join(', ');
}
