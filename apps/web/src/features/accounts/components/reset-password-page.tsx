import { useState, type FormEvent } from 'react';
import { useSearchParams } from '../../../lib/router.tsx';
import { SIGNUP_MESSAGES } from '@storefront/domain/accounts.ts';
import { AuthError } from '@storefront/sdk/auth.ts';
import { useResetPassword } from '../api/reset-password.ts';
import { errorSentence } from '../../../lib/error-message.ts';
import { ACCOUNT_TEXTS } from '../messages.ts';
import { FormAlert, FormStatus, OutcomePage, SubmitFooter, TextField } from './form-fields.tsx';
import './accounts.css';
import { paths } from '../../../lib/paths.ts';

/**
 * Where the reset mail's link lands: `?token=...` from a valid link, `?error=INVALID_TOKEN`
 * from a used or expired one.
 */
export function ResetPasswordPage() {
  const [searchParams] = useSearchParams();
  const token = searchParams.get('token');
  const resetPassword = useResetPassword();
  const [password, setPassword] = useState('');
  const [confirmPassword, setConfirmPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [tokenRefused, setTokenRefused] = useState(false);

  if (!token || searchParams.has('error') || tokenRefused) {
    return (
      <OutcomePage title="Reset password" to={paths.login} action="Back to Login">
        <FormAlert message={ACCOUNT_TEXTS.resetInvalidLink} />
        <p>{ACCOUNT_TEXTS.resetInvalidHelp}</p>
      </OutcomePage>
    );
  }

  if (resetPassword.isSuccess) {
    return (
      <OutcomePage title="Reset password" to={paths.login} action="Go to Login">
        <FormStatus message={ACCOUNT_TEXTS.resetDone} />
      </OutcomePage>
    );
  }

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (resetPassword.isPending) return;
    if (!password || !confirmPassword) return setError(SIGNUP_MESSAGES.mandatoryFields);
    if (password !== confirmPassword) return setError(SIGNUP_MESSAGES.passwordsDiffer);
    setError(null);
    resetPassword.mutate(
      { token, newPassword: password },
      {
        onError: (failure) => {
          if (failure instanceof AuthError && failure.code === 'INVALID_TOKEN') setTokenRefused(true);
          else setError(errorSentence(failure, ACCOUNT_TEXTS.failed));
        },
      },
    );
  };

  return (
    <section className="page auth-page">
      <h1>Reset password</h1>
      <p className="auth-note">Choose a new password for your account.</p>
      <form className="auth-form" noValidate onSubmit={submit}>
        <TextField
          label="New password"
          type="password"
          autoComplete="new-password"
          required
          hint={ACCOUNT_TEXTS.passwordHint}
          value={password}
          onChange={(event) => setPassword(event.target.value)}
        />
        <TextField
          label="Confirm new password"
          type="password"
          autoComplete="new-password"
          required
          value={confirmPassword}
          onChange={(event) => setConfirmPassword(event.target.value)}
        />
        <SubmitFooter error={error} pending={resetPassword.isPending} pendingLabel="Saving…">
          Set new password
        </SubmitFooter>
      </form>
    </section>
  );
}
