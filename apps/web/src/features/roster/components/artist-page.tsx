import { formatUsd } from '@storefront/domain/catalog.ts';
import { usePageTitle } from '../../../lib/page-title.ts';
import { paths } from '../../../lib/paths.ts';
import { Link, Navigate, useParams } from '../../../lib/router.tsx';
import { ErrorState } from '../../../ui/error-state.tsx';
import { LoadingRegion, Skeleton } from '../../../ui/skeleton.tsx';
import { useArtist, type PublicArtist } from '../api/roster.ts';
import './roster.css';
import { FollowButtons } from '../../../ui/follows/components/follow-buttons.tsx';

/** An artist's page (issue 36, decision 070): who they are, their releases and their merch. */
export function ArtistPage() {
  const slug = useParams().slug ?? '';
  const artist = useArtist(slug);
  // Named after the artist, as the server's <title> names it (decision 062).
  usePageTitle(artist.data ? (artist.data.artist?.name ?? 'Artist not found') : 'Artist');
  if (artist.isPending) {
    return (
      <section className="page artist-page">
        <LoadingRegion label="Loading the artist…">
          <Skeleton aspectRatio="1" width="min(100%, 240px)" />
        </LoadingRegion>
      </section>
    );
  }
  if (artist.isError) return <ErrorState headingLevel={1} title="The artist could not be loaded." onRetry={() => void artist.refetch()} />;
  const found = artist.data.artist;
  if (!found) {
    return (
      <section className="page artist-page">
        <h1>Artist not found</h1>
        <p>
          <Link to={paths.artists}>All artists</Link>
        </p>
      </section>
    );
  }
  // An old address (a rename or a merge): the page is at the current one.
  if (found.slug !== slug) return <Navigate to={paths.artist(found.slug)} replace />;
  return <Artist artist={found} />;
}

function Artist({ artist }: { artist: PublicArtist }) {
  const empty = artist.releases.length === 0 && artist.products.length === 0;
  return (
    <section className="page artist-page">
      <div className="artist-page__head">
        {artist.image ? <img className="artist-page__image" src={artist.image} alt={artist.name} width={240} height={240} /> : null}
        <div>
          <h1>{artist.name}</h1>
          {artist.bio ? (
            artist.bio.split(/\n{2,}/).map((paragraph, index) => (
              <p key={index} className="artist-page__bio">
                {paragraph}
              </p>
            ))
          ) : (
            <p className="artist-page__bio">{artist.name} is on the Street Flavor Records roster.</p>
          )}
          {artist.links.length > 0 ? (
            <ul className="artist-page__links" aria-label={`${artist.name} elsewhere`}>
              {artist.links.map((link) => (
                <li key={link.url}>
                  <a href={link.url} rel="noopener noreferrer me">
                    {link.label}
                  </a>
                </li>
              ))}
            </ul>
          ) : null}
          <FollowButtons artists={[artist]} />
        </div>
      </div>
      {empty ? <p className="artist-page__empty">No releases or merch yet: new music from {artist.name} will be here first.</p> : null}
      {artist.releases.length > 0 ? (
        <>
          <h2>Releases</h2>
          <ul className="tile-grid artist-page__grid" aria-label="Releases">
            {artist.releases.map((release) => (
              <li key={release.id} className="artist-page__tile">
                <Link to={paths.music(release.id)}>
                  {release.artwork ? (
                    <img src={release.artwork} alt="" width={200} height={200} loading="lazy" />
                  ) : (
                    <span className="artist-page__placeholder" aria-hidden="true" />
                  )}
                  <span className="artist-page__title">{release.title}</span>
                </Link>
                <span className="artist-page__meta">
                  {release.kind.toUpperCase()} · {release.releaseDate}
                </span>
              </li>
            ))}
          </ul>
        </>
      ) : null}
      {artist.products.length > 0 ? (
        <>
          <h2>Merch</h2>
          <ul className="tile-grid artist-page__grid" aria-label="Merch">
            {artist.products.map((product) => (
              <li key={product.id} className="artist-page__tile">
                <Link to={paths.product(product.id)}>
                  {product.image ? <img src={product.image} alt="" width={200} height={200} loading="lazy" /> : <span className="artist-page__placeholder" aria-hidden="true" />}
                  <span className="artist-page__title">{product.name}</span>
                </Link>
                <span className="artist-page__meta">{formatUsd(product.priceCents)}</span>
              </li>
            ))}
          </ul>
        </>
      ) : null}
      {!empty ? (
        <p>
          <Link to={paths.shopByArtist(artist.slug)}>All of {artist.name} in the shop</Link>
        </p>
      ) : null}
    </section>
  );
}
