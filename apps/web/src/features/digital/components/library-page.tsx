import { useState } from 'react';
import { DIGITAL_MESSAGES, DOWNLOAD_FORMAT_LABELS, DOWNLOAD_FORMATS, type DownloadFormat } from '@storefront/domain/digital.ts';
import { errorSentence } from '../../../lib/error-message.ts';
import { paths } from '../../../lib/paths.ts';
import { Link } from '../../../lib/router.tsx';
import { useSession } from '../../../lib/session.ts';
import { toast } from '../../../lib/toast.ts';
import { ErrorState } from '../../../ui/error-state.tsx';
import { LoadingRegion, SkeletonText } from '../../../ui/skeleton.tsx';
import { createDownloadLink, useLibrary, type LibraryRelease } from '../api/digital.ts';
import './digital.css';

/** Opens a fresh signed link (it lives for minutes): the browser downloads the file. */
async function download(input: { releaseId: number; trackId?: number; format: DownloadFormat }) {
  try {
    const { url } = await createDownloadLink(input);
    window.location.assign(url);
  } catch (error) {
    toast.error(errorSentence(error, 'The download could not start.'));
  }
}

/** The fan's library (issue 28): everything they own, bought, redeemed or bundled, to download in the format they pick. */
export function LibraryPage() {
  const session = useSession();
  const library = useLibrary(Boolean(session.user));
  if (!session.isLoading && !session.user) {
    return (
      <section className="page library-page">
        <h1>My music</h1>
        <p>
          <Link to={paths.login}>Log in</Link> to see your music.
        </p>
      </section>
    );
  }
  return (
    <section className="page library-page">
      <h1>My music</h1>
      <p>
        <Link to={paths.redeem}>Redeem a download code</Link>
      </p>
      {library.isPending ? (
        <LoadingRegion label="Loading your music…">
          <SkeletonText lines={4} />
        </LoadingRegion>
      ) : library.isError ? (
        <ErrorState title="Your music could not be loaded." onRetry={() => void library.refetch()} />
      ) : library.data.releases.length === 0 ? (
        <p>No music yet. Buy a release in the shop or redeem a code.</p>
      ) : (
        library.data.releases.map((release) => <OwnedRelease key={release.id} release={release} />)
      )}
    </section>
  );
}

function OwnedRelease({ release }: { release: LibraryRelease }) {
  const [format, setFormat] = useState<DownloadFormat>('mp3-320');
  const selectId = `format-${release.id}`;
  // A preorder (decision 061, session 10): owned now, downloadable from its release date.
  const notOut = release.availableOn !== null;
  const ready = !notOut && release.tracks.some((track) => track.owned && track.ready);
  return (
    <article className="library__release">
      {release.artwork ? <img className="library__art" src={release.artwork} alt={`Artwork of ${release.title}`} width={120} height={120} loading="lazy" /> : null}
      <h2>
        <Link to={paths.music(release.id)}>{release.title}</Link>
      </h2>
      <p>{release.artist}</p>
      <div className="library__actions">
        <label htmlFor={selectId}>Format</label>
        <select id={selectId} value={format} onChange={(event) => setFormat(event.currentTarget.value as DownloadFormat)}>
          {DOWNLOAD_FORMATS.map((value) => (
            <option key={value} value={value}>
              {DOWNLOAD_FORMAT_LABELS[value]}
            </option>
          ))}
        </select>
        {release.whole ? (
          <button type="button" className="button" disabled={!ready} onClick={() => void download({ releaseId: release.id, format })}>
            Download the album (zip)
          </button>
        ) : null}
      </div>
      {release.availableOn !== null ? (
        <p className="library__not-out">{DIGITAL_MESSAGES.notOutYet(release.availableOn)}</p>
      ) : !ready ? (
        <p>Your files are being prepared: they will be ready in a few minutes.</p>
      ) : null}
      <ol className="library__tracks">
        {release.tracks
          .filter((track) => track.owned)
          .map((track) => (
            <li key={track.id} className="library__track">
              <span>
                {track.position}. {track.title}
              </span>
              <button
                type="button"
                className="button button--secondary"
                disabled={notOut || !track.ready}
                onClick={() => void download({ releaseId: release.id, trackId: track.id, format })}
                aria-label={`Download ${track.title} (${DOWNLOAD_FORMAT_LABELS[format]})`}
              >
                Download
              </button>
            </li>
          ))}
      </ol>
    </article>
  );
}
