import { useId, useState } from 'react';
import { formatUsd } from '@storefront/domain/catalog.ts';
import { CHECKOUT_MESSAGES, MAX_NAMED_PRICE_CENTS } from '@storefront/domain/pricing.ts';
import { cartStore } from '../../../lib/cart.ts';
import { useHydrated } from '../../../lib/hydration.ts';
import { usePageTitle } from '../../../lib/page-title.ts';
import { paths } from '../../../lib/paths.ts';
import { Link, useParams } from '../../../lib/router.tsx';
import { toast } from '../../../lib/toast.ts';
import { ErrorState } from '../../../ui/error-state.tsx';
import { LoadingRegion, Skeleton } from '../../../ui/skeleton.tsx';
import { DIGITAL_MESSAGES } from '@storefront/domain/digital.ts';
import { useSession } from '../../../lib/session.ts';
import { useLibrary, useMusicRelease, type MusicRelease } from '../api/digital.ts';
import { Player } from './player.tsx';
import './digital.css';
import { centsToDecimal } from '@storefront/domain/money.ts';
import { FollowButtons } from '../../../ui/follows/components/follow-buttons.tsx';
import { HeartButton } from '../../../ui/wishlist/heart-button.tsx';

const duration = (seconds: number | null) => (seconds === null ? '' : `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`);

/** A digital release's page (issue 28): artwork, track list, the preview player, and Buy for the album and priced tracks. */
export function MusicPage() {
  const id = Number(useParams().id);
  const release = useMusicRelease(Number.isSafeInteger(id) && id > 0 ? id : 0);
  // Named after the release, as the server's <title> names it (decision 062).
  usePageTitle(release.data ? (release.data.release?.title ?? 'Release not found') : 'Music');
  if (release.isPending) {
    return (
      <section className="page music-page">
        <LoadingRegion label="Loading the release…">
          <Skeleton aspectRatio="1" width="min(100%, 360px)" />
        </LoadingRegion>
      </section>
    );
  }
  if (release.isError) return <ErrorState headingLevel={1} title="The release could not be loaded." onRetry={() => void release.refetch()} />;
  if (!release.data.release) {
    return (
      <section className="page music-page">
        <h1>Release not found</h1>
        <p>
          <Link to={paths.shop}>Back to the shop</Link>
        </p>
      </section>
    );
  }
  return <Release release={release.data.release} />;
}

function Release({ release }: { release: MusicRelease }) {
  // Server-rendered (decision 062): a press before the page's code has hydrated would be lost.
  const hydrated = useHydrated();
  const [current, setCurrent] = useState(() =>
    Math.max(
      0,
      release.tracks.findIndex((track) => track.previewUrl),
    ),
  );
  // What the signed-in fan owns of it (issue 39 item 7): said instead of a Buy button, with the way to the library.
  const session = useSession();
  const library = useLibrary(Boolean(session.user));
  const mine = library.data?.releases.find((entry) => entry.id === release.id);
  const ownsTrack = (trackId: number) => Boolean(mine?.whole || mine?.tracks.some((track) => track.id === trackId && track.owned));
  const trackProducts = release.tracks.flatMap((track) => (track.productId ? [track.productId] : []));
  const buy = (productId: string, title: string, priceCents: number, amountCents?: number) => {
    const inCart = cartStore.get().lines;
    // The album includes its tracks (the server refuses both in one cart): a track beside the album is not added...
    if (productId !== release.productId && inCart.some((line) => line.lineId === release.productId)) {
      toast.success(DIGITAL_MESSAGES.trackInAlbum(title));
      return;
    }
    // ...and the album takes the place of its tracks already in the cart.
    const replaced = productId === release.productId ? inCart.filter((line) => trackProducts.includes(line.lineId)) : [];
    for (const line of replaced) cartStore.remove(line.lineId);
    cartStore.add({
      lineId: productId,
      // One copy is all a fan can own (issue 39): the cart offers no quantity for it.
      digital: true,
      title,
      image: release.artwork,
      priceCents: amountCents ?? priceCents,
      ...(amountCents !== undefined ? { amountCents, minimumCents: priceCents } : {}),
    });
    toast.success(replaced.length > 0 ? `${title} is in your cart. ${DIGITAL_MESSAGES.tracksRemoved(title)}` : `${title} is in your cart.`);
  };
  const albumTitle = `${release.title} (digital ${release.kind})`;
  return (
    <section className="page music-page">
      <div className="music-page__head">
        {release.artwork ? <img className="music-page__art" src={release.artwork} alt={`Artwork of ${release.title}`} width={360} height={360} /> : null}
        <div>
          <h1>{release.title}</h1>
          <p className="music-page__artist">{release.artist}</p>
          {release.artists.length > 0 ? (
            <p className="music-page__roster">
              More from{' '}
              {release.artists.map((artist, index) => (
                <span key={artist.slug}>
                  {index > 0 ? ', ' : ''}
                  <Link to={paths.artist(artist.slug)}>{artist.name}</Link>
                </span>
              ))}
            </p>
          ) : null}
          <FollowButtons artists={release.artists} />
          <p>
            {release.kind.toUpperCase()} · {release.preorder ? `Out ${release.releaseDate} (preorder)` : release.releaseDate}
          </p>
          {mine?.whole ? (
            <p className="notice music-page__owned">
              {DIGITAL_MESSAGES.ownedRelease} <Link to={paths.library}>Open it in your library</Link>
            </p>
          ) : release.productId && release.nameYourPrice ? (
            <NameYourPrice
              kind={release.kind}
              minimumCents={release.priceCents}
              onBuy={(amountCents) => buy(release.productId!, albumTitle, release.priceCents, amountCents)}
              title={albumTitle}
            />
          ) : release.productId ? (
            <button type="button" className="button" disabled={!hydrated} onClick={() => buy(release.productId!, albumTitle, release.priceCents)}>
              Buy the {release.kind} {formatUsd(release.priceCents)}
            </button>
          ) : null}
          {release.productId ? <HeartButton productId={release.productId} name={albumTitle} /> : null}
          <p className="music-page__note">Instant download in MP3, AAC, FLAC or ALAC, kept in your library.</p>
        </div>
      </div>
      <Player tracks={release.tracks} current={current} onSelect={setCurrent} />
      <ol className="music-page__tracks">
        {release.tracks.map((track, index) => (
          <li key={track.id} className={index === current ? 'music-page__track is-current' : 'music-page__track'}>
            <button
              type="button"
              className="link-button"
              onClick={() => setCurrent(index)}
              disabled={!hydrated || !track.previewUrl}
              aria-current={index === current ? 'true' : undefined}
            >
              {track.position}. {track.title}
            </button>
            <span className="music-page__duration">{duration(track.durationSeconds)}</span>
            {ownsTrack(track.id) ? (
              <Link className="music-page__owned-track" to={paths.library}>
                {DIGITAL_MESSAGES.ownedTrack}
                <span className="visually-hidden"> {track.title}: open your library</span>
              </Link>
            ) : track.productId && track.priceCents !== null && track.nameYourPrice ? (
              <NameYourPrice
                kind="track"
                minimumCents={track.priceCents}
                onBuy={(amountCents) => buy(track.productId!, `${track.title} (digital track)`, track.priceCents!, amountCents)}
                title={`${track.title} (digital track)`}
              />
            ) : track.productId && track.priceCents !== null ? (
              <button
                type="button"
                className="button button--secondary"
                disabled={!hydrated}
                onClick={() => buy(track.productId!, `${track.title} (digital track)`, track.priceCents!)}
              >
                {/* Named with its track for a screen reader (issue 39), the visible words first. */}
                Buy {formatUsd(track.priceCents)}
                <span className="visually-hidden"> for {track.title}</span>
              </button>
            ) : null}
            {track.lyrics ? (
              <details className="music-page__lyrics">
                <summary>
                  Lyrics<span className="visually-hidden"> of {track.title}</span>
                </summary>
                <p>{track.lyrics}</p>
              </details>
            ) : null}
          </li>
        ))}
      </ol>
      {release.credits ? <p className="music-page__credits">{release.credits}</p> : null}
    </section>
  );
}

/**
 * "Name your price" (issue 28): the fan types an amount in dollars, at least the label's minimum;
 * the cart keeps it in whole cents and the server prices the order with it (or refuses it).
 */
function NameYourPrice({ kind, minimumCents, title, onBuy }: { kind: string; minimumCents: number; title: string; onBuy: (amountCents: number) => void }) {
  const id = useId();
  const [text, setText] = useState(centsToDecimal(minimumCents));
  const [problem, setProblem] = useState<string | null>(null);
  // A server-rendered page (decision 062): nothing typed or pressed before its code has hydrated is lost.
  const hydrated = useHydrated();
  const submit = () => {
    const cents = /^\d{1,6}(\.\d{1,2})?$/.test(text.trim()) ? Math.round(Number(text.trim()) * 100) : Number.NaN;
    if (!Number.isSafeInteger(cents)) return setProblem('Please enter an amount in dollars and cents, like 12.50.');
    if (cents > MAX_NAMED_PRICE_CENTS) return setProblem(CHECKOUT_MESSAGES.namedPriceTooHigh);
    if (cents < minimumCents) return setProblem(CHECKOUT_MESSAGES.belowMinimum(title, minimumCents));
    setProblem(null);
    onBuy(cents);
  };
  return (
    <form
      className="music-page__nyp"
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        submit();
      }}
    >
      <label htmlFor={id}>
        Name your price (at least {formatUsd(minimumCents)})<span className="visually-hidden"> for {title}</span>
      </label>
      <div className="music-page__nyp-row">
        <span aria-hidden="true">$</span>
        <input
          id={id}
          className="field-control"
          inputMode="decimal"
          value={text}
          maxLength={9}
          aria-invalid={problem ? true : undefined}
          aria-describedby={problem ? `${id}-problem` : undefined}
          disabled={!hydrated}
          onChange={(event) => setText(event.target.value)}
        />
        <button type="submit" className="button" disabled={!hydrated}>
          Buy the {kind}
          {kind === 'track' ? <span className="visually-hidden">: {title}</span> : null}
        </button>
      </div>
      {problem ? (
        <p id={`${id}-problem`} role="alert" className="notice notice--error">
          {problem}
        </p>
      ) : null}
    </form>
  );
}
