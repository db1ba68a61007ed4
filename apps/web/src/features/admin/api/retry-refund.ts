import type { FunctionInput } from '@storefront/domain/contracts/index.ts';
import { functionsClient } from '../../../lib/api-client.ts';
import { useRefundMutation } from './refund-order.ts';

/** A card refund whose background retries ran out, or that the provider failed later, sent again (decision 034: a new provider key after a failure the provider reported). */
export function retryRefund(request: FunctionInput<'retryRefund'>) {
  return functionsClient.call('retryRefund', request);
}

export function useRetryRefund() {
  return useRefundMutation(retryRefund);
}
