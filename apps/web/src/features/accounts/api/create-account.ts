import { useMutation } from '@tanstack/react-query';
import type { SignupForm } from '@storefront/domain/accounts.ts';
import type { FunctionOutput } from '@storefront/domain/contracts/index.ts';
import { authClient } from '../../../lib/session.ts';

/** Creates the account and mails the verification link; it does not sign in. */
export function createAccount(form: SignupForm): Promise<FunctionOutput<'createAccount'>> {
  return authClient.signUp(form);
}

export function useCreateAccount() {
  return useMutation({ mutationFn: createAccount });
}
