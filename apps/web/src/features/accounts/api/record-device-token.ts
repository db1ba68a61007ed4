import type { FunctionOutput } from '@storefront/domain/contracts/index.ts';
import { functionsClient } from '../../../lib/api-client.ts';

/** Stores the app's push token on the signed-in profile (spec section 4, Login). */
export function recordDeviceToken(deviceToken: string): Promise<FunctionOutput<'recordDeviceToken'>> {
  return functionsClient.call('recordDeviceToken', { deviceToken });
}
