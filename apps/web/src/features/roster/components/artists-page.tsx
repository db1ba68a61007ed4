import { paths } from '../../../lib/paths.ts';
import { Link } from '../../../lib/router.tsx';
import { ErrorState } from '../../../ui/error-state.tsx';
import { LoadingRegion, Skeleton } from '../../../ui/skeleton.tsx';
import { useArtists } from '../api/roster.ts';
import './roster.css';
import { NewsSignupForm } from '../../../ui/follows/components/news-signup-form.tsx';

/** The label's roster (issue 36, decision 070): every artist, each a link to their page. */
export function ArtistsPage() {
  const artists = useArtists();
  if (artists.isPending) {
    return (
      <section className="page artists-page">
        <h1>Artists</h1>
        <LoadingRegion label="Loading the artists…">
          <Skeleton width="min(100%, 240px)" />
        </LoadingRegion>
      </section>
    );
  }
  if (artists.isError) return <ErrorState headingLevel={1} title="The artists could not be loaded." onRetry={() => void artists.refetch()} />;
  const list = artists.data.artists;
  return (
    <section className="page artists-page">
      <h1>Artists</h1>
      {list.length === 0 ? (
        <p>The roster is being written: the label’s artists will be listed here.</p>
      ) : (
        <ul className="tile-grid artist-page__grid" aria-label="Artists">
          {list.map((artist) => (
            <li key={artist.slug} className="artist-page__tile">
              <Link to={paths.artist(artist.slug)}>
                {artist.image ? <img src={artist.image} alt="" width={200} height={200} loading="lazy" /> : <span className="artist-page__placeholder" aria-hidden="true" />}
                <span className="artist-page__title">{artist.name}</span>
              </Link>
            </li>
          ))}
        </ul>
      )}
      <NewsSignupForm />
    </section>
  );
}
