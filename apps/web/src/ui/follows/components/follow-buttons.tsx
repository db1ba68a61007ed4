import { errorSentence } from '../../../lib/error-message.ts';
import { paths } from '../../../lib/paths.ts';
import { Link, useLocation } from '../../../lib/router.tsx';
import { useSession } from '../../../lib/session.ts';
import { isFollowing, useFollows, useSetFollow, type FollowTarget } from '../api/follows.ts';
import { FOLLOW_TEXTS, LABEL_NAME } from '../messages.ts';
import './follows.css';

interface FollowOne {
  target: FollowTarget;
  name: string;
}

/**
 * Follow buttons (issue 37, decision 074) for the label and the artists a page names. A
 * signed-out visitor gets a prompt to log in (and comes back here); a signed-in fan's
 * buttons say what they follow, kept right across tabs by the live 'profile' topic.
 */
export function FollowButtons({ artists, label = true }: { artists: readonly { id: number; name: string }[]; label?: boolean }) {
  const session = useSession();
  const { pathname } = useLocation();
  const follows = useFollows(session.isSignedIn === true);
  const change = useSetFollow();
  const targets: FollowOne[] = [
    ...artists.map((artist) => ({ target: { kind: 'artist' as const, artistId: artist.id }, name: artist.name })),
    ...(label ? [{ target: { kind: 'label' as const }, name: LABEL_NAME }] : []),
  ];
  if (targets.length === 0 || session.isLoading) return null;
  if (!session.isSignedIn) {
    return (
      <p className="follow-buttons">
        <Link to={paths.login} state={{ from: pathname }} className="button button--secondary" data-testid="follow-sign-in">
          {FOLLOW_TEXTS.signIn}
        </Link>
      </p>
    );
  }
  return (
    <div className="follow-buttons">
      <ul>
        {targets.map(({ target, name }) => {
          const on = isFollowing(follows.data, target);
          return (
            <li key={target.kind === 'label' ? 'label' : target.artistId}>
              <button
                type="button"
                className={on ? 'button follow-buttons__on' : 'button button--secondary'}
                aria-pressed={on}
                disabled={follows.isPending || change.isPending}
                onClick={() => change.mutate({ target, followed: !on })}
              >
                {on ? FOLLOW_TEXTS.following(name) : FOLLOW_TEXTS.follow(name)}
              </button>
            </li>
          );
        })}
      </ul>
      {change.isError ? <p role="alert">{errorSentence(change.error, FOLLOW_TEXTS.failed)}</p> : null}
    </div>
  );
}
