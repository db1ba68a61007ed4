import { useMutation } from '@tanstack/react-query';
import type { SignupForm } from '@storefront/domain/accounts.ts';
import { authClient } from '../../../lib/session.ts';

/** Creates the account and mails the verification link; it does not sign in. */
export function createAccount(form: SignupForm): Promise<{ ok: true; email: string }> {
  return authClient.signUp(form);
}

export function useCreateAccount() {
  return useMutation({ mutationFn: createAccount });
}
