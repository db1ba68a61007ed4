import { useMutation } from '@tanstack/react-query';
import { authClient } from '../../../lib/session.ts';

/** Mails a reset link; the answer is the same whether or not the email has an account. */
export function requestPasswordReset(email: string): Promise<void> {
  return authClient.requestPasswordReset(email);
}

export function useRequestPasswordReset() {
  return useMutation({ mutationFn: requestPasswordReset });
}
