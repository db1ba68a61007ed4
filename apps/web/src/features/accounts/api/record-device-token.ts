import { functionsClient } from '../../../lib/api-client.ts';

/** Stores the app's push token on the signed-in profile (spec section 4, Login). */
export function recordDeviceToken(deviceToken: string): Promise<{ ok: true }> {
  return functionsClient.call<{ ok: true }>('recordDeviceToken', { deviceToken });
}
