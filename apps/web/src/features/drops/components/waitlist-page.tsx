import { useEffect } from 'react';
import { errorSentence } from '../../../lib/error-message.ts';
import { paths } from '../../../lib/paths.ts';
import { Link, useLocation, useSearchParams } from '../../../lib/router.tsx';
import { useSession } from '../../../lib/session.ts';
import { LoadingRegion, SkeletonText } from '../../../ui/skeleton.tsx';
import { useLeaveWaitlistByLink, useMyWaitlists, useWaitlistMutation } from '../api/drops.ts';
import { WAITLIST_TEXTS } from './drop-waitlist.tsx';
import { formatMoment } from './use-drop-clock.ts';
import './drops.css';

/**
 * The fan's waitlists, /waitlist (the waitlist mail's link, decision 066): a unit kept for them
 * with its deadline and a way to buy it, their place on each list, and leaving a list.
 */
export function WaitlistPage() {
  const session = useSession();
  const { pathname } = useLocation();
  const lists = useMyWaitlists(session.isSignedIn === true, 30_000);
  const leave = useWaitlistMutation('leave');
  return (
    <section className="page waitlist-page">
      <h1>My waitlists</h1>
      {session.isLoading ? (
        <p>Checking your account…</p>
      ) : !session.isSignedIn ? (
        <p>
          <Link to={paths.login} state={{ from: pathname }} className="button">
            Sign in to see your waitlists
          </Link>
        </p>
      ) : lists.isPending ? (
        <LoadingRegion label="Loading your waitlists…">
          <SkeletonText lines={3} />
        </LoadingRegion>
      ) : lists.isError ? (
        <p role="alert">{errorSentence(lists.error, 'Could not read your waitlists.')}</p>
      ) : lists.data.length === 0 ? (
        <p>You are on no waitlist.</p>
      ) : (
        <ul className="drop__waitlist">
          {lists.data.map((entry) => (
            <li key={entry.variantId} className="drop__waitlist-item">
              <p className="drop__waitlist-name">{entry.name}</p>
              {entry.status === 'offered' && entry.offerExpiresAt ? (
                <>
                  <p data-testid="waitlist-offer">{WAITLIST_TEXTS.offered(entry.name, formatMoment(entry.offerExpiresAt))}</p>
                  <Link to={paths.product(entry.productId)} className="button">
                    {WAITLIST_TEXTS.buy}
                  </Link>
                </>
              ) : (
                <p>{WAITLIST_TEXTS.place(entry.place)}</p>
              )}
              <button type="button" className="button button--secondary" disabled={leave.isPending} onClick={() => leave.mutate(entry.variantId)}>
                {WAITLIST_TEXTS.leave(entry.name)}
              </button>
            </li>
          ))}
        </ul>
      )}
      {leave.isError ? <p role="alert">{errorSentence(leave.error, 'Could not leave the waitlist.')}</p> : null}
    </section>
  );
}

/** /waitlist/leave?token=… : the mail's "leave this list" link, no sign-in needed. */
export function WaitlistLeavePage() {
  const [search] = useSearchParams();
  const token = search.get('token') ?? '';
  const leave = useLeaveWaitlistByLink();
  const { mutate } = leave;
  useEffect(() => {
    if (token) mutate(token);
  }, [token, mutate]);
  return (
    <section className="page waitlist-page">
      <h1>Leave the waitlist</h1>
      <p role="status">
        {!token
          ? 'This link is not complete: open the link from the mail again.'
          : leave.isSuccess
            ? 'You left the waitlist. We will not email you about this item again.'
            : leave.isError
              ? errorSentence(leave.error, 'Could not leave the waitlist.')
              : 'Leaving the waitlist…'}
      </p>
      <Link to={paths.shop}>Back to the shop</Link>
    </section>
  );
}
