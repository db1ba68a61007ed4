import { PORTAL_MESSAGES } from '@storefront/domain/royalty-portal.ts';
import { errorSentence } from '../../../lib/error-message.ts';
import { paths } from '../../../lib/paths.ts';
import { Link, useLocation, useNavigate, useSearchParams } from '../../../lib/router.tsx';
import { useSession } from '../../../lib/session.ts';
import { useAcceptInvitation } from '../api/portal.ts';
import './portal.css';

/**
 * /portal/accept?token=… (issue 36 part 6, decision 080): a portal invitation's link. Signed out,
 * it asks the visitor to log in (or sign up) with the shop account the sister products share, and
 * comes back here; signed in, one press binds the account to the party and opens the portal.
 */
export function PortalAcceptPage() {
  const [search] = useSearchParams();
  const { pathname, search: query } = useLocation();
  const navigate = useNavigate();
  const token = search.get('token') ?? '';
  const session = useSession();
  const accept = useAcceptInvitation();
  const press = () => accept.mutate(token, { onSuccess: () => navigate(paths.portal) });
  return (
    <section className="page portal-page">
      <h1>Your royalties</h1>
      {!token ? (
        <p role="alert">{PORTAL_MESSAGES.linkInvalid}</p>
      ) : session.isLoading ? (
        <p role="status">Checking your account…</p>
      ) : !session.isSignedIn ? (
        <>
          <p>The label invited you to see your royalties here. Log in with your Street Flavor account (the one the sister apps use) to accept.</p>
          <p className="portal-page__actions">
            <Link to={paths.login} state={{ from: `${pathname}${query}` }} className="button">
              Log in to accept
            </Link>
          </p>
          <p>
            No account yet? <Link to={paths.signup}>Create one</Link>, confirm your email, then open the invitation&apos;s link again.
          </p>
        </>
      ) : (
        <>
          <p>
            Signed in as {session.user?.email}. Accepting lets this account see the royalties the label shares with you: statements, sales of your releases, recoup and payouts.
          </p>
          <button type="button" className="button" disabled={accept.isPending} onClick={press}>
            Accept the invitation
          </button>
          {accept.isError ? <p role="alert">{errorSentence(accept.error, PORTAL_MESSAGES.linkInvalid)}</p> : null}
        </>
      )}
    </section>
  );
}
