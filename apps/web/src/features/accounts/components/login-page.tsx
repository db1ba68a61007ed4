import { useEffect, useState, type FormEvent } from 'react';
import { Link, Navigate, useLocation, useSearchParams } from '../../../lib/router.tsx';
import { LOGIN_MESSAGES, loginProblem } from '@storefront/domain/accounts.ts';
import { AuthError } from '@storefront/sdk/auth.ts';
import { useSession } from '../../../lib/session.ts';
import { Spinner } from '../../../ui/spinner.tsx';
import { useRequestPasswordReset } from '../api/request-password-reset.ts';
import { useSignIn } from '../api/sign-in.ts';
import { errorSentence } from '../../../lib/error-message.ts';
import { AFTER_LOGIN_PATH, readLoginState, ssoReturnPath } from '../login-state.ts';
import { ACCOUNT_TEXTS } from '../messages.ts';
import { FormAlert, FormStatus, ProgressButton, TextField } from './form-fields.tsx';
import './accounts.css';
import { paths } from '../../../lib/paths.ts';

/** Spec sections 2 and 4, Login: sign in, or ask for a password reset link. */
export function LoginPage() {
  const location = useLocation();
  const [searchParams] = useSearchParams();
  const arrival = readLoginState(location.state);
  const ssoReturn = ssoReturnPath(searchParams);
  const session = useSession();
  const signIn = useSignIn();
  const requestReset = useRequestPasswordReset();

  const [email, setEmail] = useState(arrival.email);
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [unverified, setUnverified] = useState(false);
  const busy = signIn.isPending || requestReset.isPending;

  if (session.isSignedIn && ssoReturn) return <LeaveForSisterProduct to={ssoReturn} />;
  if (session.isSignedIn) return <Navigate to={arrival.from ?? AFTER_LOGIN_PATH} replace />;

  const showMessage = (next: { error?: string; notice?: string }) => {
    setError(next.error ?? null);
    setNotice(next.notice ?? null);
  };

  const login = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (busy) return;
    const problem = loginProblem(email, password);
    if (problem) return showMessage({ error: problem });
    showMessage({});
    setUnverified(false);
    // On success the session query holds the user and this page redirects itself.
    signIn.mutate(
      { email, password, deviceToken: searchParams.get('deviceToken') },
      {
        onError: (failure) => {
          if (failure instanceof AuthError && failure.code === 'EMAIL_NOT_VERIFIED') setUnverified(true);
          else showMessage({ error: errorSentence(failure, LOGIN_MESSAGES.invalidCredentials) });
        },
      },
    );
  };

  const forgotPassword = () => {
    if (busy) return;
    if (!email.trim()) return showMessage({ error: LOGIN_MESSAGES.resetNeedsEmail });
    showMessage({});
    requestReset.mutate(email, {
      onSuccess: () => showMessage({ notice: LOGIN_MESSAGES.resetSent }),
      onError: (failure) => showMessage({ error: errorSentence(failure, ACCOUNT_TEXTS.failed) }),
    });
  };

  const banner = unverified
    ? LOGIN_MESSAGES.verifyEmail
    : searchParams.get('verified') === '1'
      ? ACCOUNT_TEXTS.verified
      : arrival.verifyEmail
        ? ACCOUNT_TEXTS.signupDone(arrival.email)
        : null;

  return (
    <section className="page auth-page">
      <h1>Login</h1>
      <FormStatus tone="info" message={banner} />
      <p className="auth-note">{ssoReturn ? ACCOUNT_TEXTS.ssoContinue : ACCOUNT_TEXTS.sisterProducts}</p>
      {session.isLoading ? (
        <Spinner label="Checking whether you are signed in…" />
      ) : (
        <form className="auth-form" noValidate onSubmit={login} aria-busy={busy || undefined}>
          <TextField
            label="Email"
            type="email"
            name="email"
            autoComplete="email"
            inputMode="email"
            spellCheck={false}
            value={email}
            onChange={(event) => setEmail(event.target.value)}
          />
          <TextField label="Password" type="password" name="password" autoComplete="current-password" value={password} onChange={(event) => setPassword(event.target.value)} />
          <FormAlert message={error} />
          <FormStatus message={notice} />
          <div className="auth-actions">
            <ProgressButton type="submit" pending={signIn.isPending} pendingLabel="Logging in…" disabled={busy}>
              Login
            </ProgressButton>
            <ProgressButton
              type="button"
              className="button button--secondary"
              pending={requestReset.isPending}
              pendingLabel="Sending link…"
              disabled={busy}
              onClick={forgotPassword}
            >
              Forgot Password?
            </ProgressButton>
          </div>
        </form>
      )}
      <div className="auth-secondary">
        <Link to={paths.signup} className="button button--secondary">
          Create account
        </Link>
        <Link to={paths.privacyPolicy} className="button button--secondary">
          Privacy Policy
        </Link>
      </div>
    </section>
  );
}

/** Signed in for a sister product: the server's sign-in step finishes and sends the visitor back to the app. */
function LeaveForSisterProduct({ to }: { to: string }) {
  useEffect(() => {
    window.location.replace(to);
  }, [to]);
  return (
    <section className="page auth-page">
      <Spinner label={ACCOUNT_TEXTS.ssoReturning} />
    </section>
  );
}
