import { safeLinkHref } from '@storefront/domain/content.ts';
import { responsiveImage } from '@storefront/domain/storage-images.ts';
import { ErrorState } from '../../../ui/error-state.tsx';
import { LoadingRegion, Skeleton, SkeletonCards, SkeletonText } from '../../../ui/skeleton.tsx';
import { useHomeContent } from '../api/get-page.ts';
import type { Cover } from '../types.ts';
import { COMING_SOON } from '../messages.ts';
import { ComingSoon } from './coming-soon.tsx';
import './content.css';

/** Covers above the fold on most screens load at once; the rest wait until scrolled near. */
const EAGER_COVERS = 4;
const COVER_SIZE = 600;

// The loading / failed / empty / content branches match history-page.tsx's by design: same states, each page's own placeholders and texts.
export function HomePage() {
  const { data, isPending, isError, refetch } = useHomeContent();

  return (
    <section className="page home-page">
      <h1>Street Flavor Records</h1>
      {isPending ? (
        <LoadingRegion label="Loading the gallery…">
          <SkeletonText lines={2} />
          <ul className="cover-grid">
            <SkeletonCards count={10} className="cover-card" as="li">
              <Skeleton aspectRatio="1 / 1" width="100%" />
              <Skeleton width="70%" className="cover-card__caption-skeleton" />
            </SkeletonCards>
          </ul>
        </LoadingRegion>
      ) : isError ? (
        <ErrorState title="The gallery could not be loaded." message="Check your connection and try again." onRetry={() => void refetch()} />
      ) : data.covers.length === 0 ? (
        <ComingSoon {...COMING_SOON.home} />
      ) : (
        <>
          {data.intro ? <p className="page-lead">{data.intro}</p> : null}
          <h2 className="visually-hidden">Releases</h2>
          <ul className="cover-grid">
            {data.covers.map((cover, index) => (
              <CoverCard key={`${cover.url}-${index}`} cover={cover} index={index} />
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

function CoverCard({ cover, index }: { cover: Cover; index: number }) {
  const details = [cover.artist, cover.year].filter(Boolean).join(' · ');
  // Uploaded covers (issue 18) come with the storage's WebP variants; the sample art as it is.
  const image = responsiveImage(cover.image);
  // Only http(s) and mailto links are followed; anything else shows the cover without a link.
  const href = safeLinkHref(cover.url);
  const content = (
    <>
      <img
        className="cover-card__image"
        src={image.src}
        srcSet={image.srcset || undefined}
        sizes={image.srcset ? '(max-width: 725px) 50vw, 300px' : undefined}
        alt={`Cover of ${cover.title}`}
        width={COVER_SIZE}
        height={COVER_SIZE}
        loading={index < EAGER_COVERS ? 'eager' : 'lazy'}
        decoding="async"
        {...(index === 0 ? { fetchPriority: 'high' as const } : {})}
      />
      <span className="cover-card__caption">
        <span className="cover-card__title">{cover.title}</span>
        {details ? <span className="cover-card__details">{details}</span> : null}
        {href ? <span className="visually-hidden"> (opens in a new tab)</span> : null}
      </span>
    </>
  );
  return (
    <li className="cover-card">
      {href ? (
        <a className="cover-card__link" href={href} target="_blank" rel="noopener noreferrer">
          {content}
        </a>
      ) : (
        <div className="cover-card__link">{content}</div>
      )}
    </li>
  );
}
