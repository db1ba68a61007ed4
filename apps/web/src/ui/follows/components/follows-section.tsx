import './follows.css';
import { errorSentence } from '../../../lib/error-message.ts';
import { paths } from '../../../lib/paths.ts';
import { Link } from '../../../lib/router.tsx';
import { useFollows, useSetFollow } from '../api/follows.ts';
import { FOLLOW_TEXTS, LABEL_NAME } from '../messages.ts';

/**
 * /account's follows (issue 37, decision 074): the label and each artist the fan follows, each
 * with its Unfollow button; kept right by the live 'profile' topic when another tab changes them.
 */
export function FollowsSection() {
  const follows = useFollows(true);
  const change = useSetFollow();
  const list = follows.data;
  const empty = list && !list.label && list.artists.length === 0;
  return (
    <section className="account-card" aria-labelledby="account-follows">
      <h2 id="account-follows">Following</h2>
      {follows.isError ? <p role="alert">{errorSentence(follows.error, 'Could not read your follows.')}</p> : null}
      {follows.isPending ? <p>Loading…</p> : null}
      {empty ? (
        <p>
          {FOLLOW_TEXTS.none} Find artists on <Link to={paths.artists}>the roster</Link>.
        </p>
      ) : null}
      {list && !empty ? (
        <ul className="follows-list" aria-label="Follows">
          {list.label ? (
            <li>
              <span>{LABEL_NAME}</span>{' '}
              <button type="button" className="button button--secondary" disabled={change.isPending} onClick={() => change.mutate({ target: { kind: 'label' }, followed: false })}>
                {FOLLOW_TEXTS.unfollow(LABEL_NAME)}
              </button>
            </li>
          ) : null}
          {list.artists.map((artist) => (
            <li key={artist.id}>
              <Link to={paths.artist(artist.slug)}>{artist.name}</Link>{' '}
              <button
                type="button"
                className="button button--secondary"
                disabled={change.isPending}
                onClick={() => change.mutate({ target: { kind: 'artist', artistId: artist.id }, followed: false })}
              >
                {FOLLOW_TEXTS.unfollow(artist.name)}
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      {change.isError ? <p role="alert">{errorSentence(change.error, FOLLOW_TEXTS.failed)}</p> : null}
    </section>
  );
}
