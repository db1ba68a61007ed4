import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import type { FunctionInput, FunctionOutput } from '@storefront/domain/contracts/index.ts';
import { FunctionsError } from '@storefront/sdk/callable.ts';
import { functionsClient } from '../../../lib/api-client.ts';
import { checkoutQuoteKeys } from '../../../lib/query-keys.ts';

export type CheckoutQuote = FunctionOutput<'quoteCheckout'>;
export type QuoteInput = FunctionInput<'quoteCheckout'>;

/** The server's prices for the cart and the caller's own wallet balance (spec section 9). */
export function quoteCheckout(input: QuoteInput, signal?: AbortSignal): Promise<CheckoutQuote> {
  return functionsClient.call('quoteCheckout', input, { signal });
}

// Under the product key so a live product change (a new price, an item withdrawn) re-prices it.
export const QUOTE_KEY = checkoutQuoteKeys.all;

export const quoteQueryOptions = (input: QuoteInput) =>
  queryOptions({
    queryKey: checkoutQuoteKeys.one(input),
    queryFn: ({ signal }) => quoteCheckout(input, signal),
    enabled: input.items.length > 0,
    staleTime: 0,
    // The wallet may have been spent in another tab meanwhile.
    refetchOnWindowFocus: true,
    // A refused cart will be refused again: show the reason at once.
    retry: (count, error) => !(error instanceof FunctionsError && error.code === 'failed-precondition') && count < 1,
    placeholderData: keepPreviousData,
  });

export function useCheckoutQuote(input: QuoteInput) {
  return useQuery(quoteQueryOptions(input));
}

/** The product ids the server named as inactive or unknown, if that is why it refused. */
export function unavailableItems(error: unknown): string[] {
  if (!(error instanceof FunctionsError) || error.code !== 'failed-precondition') return [];
  const details = error.details;
  if (typeof details !== 'object' || details === null || !('unavailable' in details)) return [];
  const ids = details.unavailable;
  return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === 'string') : [];
}

/** The cart lines the server said ran out (issue 15), with how many are left of each. */
export function outOfStockLines(error: unknown): { lineId: string; left: number }[] {
  if (!(error instanceof FunctionsError) || error.code !== 'failed-precondition') return [];
  const details = error.details;
  if (typeof details !== 'object' || details === null || !('outOfStock' in details) || !Array.isArray(details.outOfStock)) return [];
  return details.outOfStock.filter(
    (line): line is { lineId: string; left: number } => typeof line === 'object' && line !== null && typeof line.lineId === 'string' && typeof line.left === 'number',
  );
}
