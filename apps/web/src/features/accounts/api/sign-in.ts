import { useMutation, useQueryClient } from '@tanstack/react-query';
import { LOGIN_MESSAGES } from '@storefront/domain/accounts.ts';
import { AuthError, type CurrentUser } from '@storefront/sdk/auth.ts';
import { authClient, resetUserValues } from '../../../lib/session.ts';
import { recordDeviceToken } from './record-device-token.ts';

export interface SignInInput {
  email: string;
  password: string;
  /** From the app's `?deviceToken=` link, when it opened the login page. */
  deviceToken: string | null;
}

/**
 * Signs in, writes the device token when there is one, and loads the signed-in user.
 * Rejects with an AuthError; code EMAIL_NOT_VERIFIED means a fresh link was mailed.
 */
export async function signIn({ email, password, deviceToken }: SignInInput): Promise<CurrentUser> {
  await authClient.signIn(email, password);
  if (deviceToken) {
    // The sign-in itself succeeded; a missing push token must not keep the visitor out.
    await recordDeviceToken(deviceToken).catch((error: unknown) => {
      console.warn('Could not record the device token after sign-in:', error);
    });
  }
  const user = await authClient.me();
  if (!user) throw new AuthError(401, 'NO_USER', LOGIN_MESSAGES.noUser);
  return user;
}

/** A new user: every per-user value of the previous visitor goes (spec section 4). */
export function useSignIn() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: signIn,
    onSuccess: (user) => resetUserValues(queryClient, user),
  });
}
