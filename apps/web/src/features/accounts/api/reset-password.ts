import { useMutation, useQueryClient } from '@tanstack/react-query';
import { authClient, meQueryOptions } from '../../../lib/session.ts';

export interface ResetPasswordInput {
  token: string;
  newPassword: string;
}

export function resetPassword({ token, newPassword }: ResetPasswordInput): Promise<void> {
  return authClient.resetPassword(token, newPassword);
}

export function useResetPassword() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: resetPassword,
    // The server revokes the account's sessions on reset, this browser's included.
    onSuccess: () => queryClient.invalidateQueries({ queryKey: meQueryOptions().queryKey }),
  });
}
