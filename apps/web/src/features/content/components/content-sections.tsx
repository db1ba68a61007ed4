import { ErrorState } from '../../../ui/error-state.tsx';
import { LoadingRegion, Skeleton, SkeletonCards, SkeletonText } from '../../../ui/skeleton.tsx';
import { usePageSections } from '../api/get-page.ts';
import { COMING_SOON } from '../messages.ts';
import { ComingSoon } from './coming-soon.tsx';

/** The body of a text page (about, privacy policy): headed sections of paragraphs. */
export function ContentSections({ slug }: { slug: 'about' | 'privacy-policy' }) {
  const { data: sections, isPending, isError, refetch } = usePageSections(slug);

  if (isPending) {
    return (
      <LoadingRegion>
        <SkeletonCards count={2} className="content-section">
          <Skeleton width="12rem" height="1.6rem" />
          <SkeletonText lines={4} />
        </SkeletonCards>
      </LoadingRegion>
    );
  }
  if (isError) {
    return <ErrorState title="This content could not be loaded." message="Check your connection and try again." onRetry={() => void refetch()} />;
  }
  if (sections.length === 0) return <ComingSoon {...COMING_SOON[slug]} />;
  return (
    <div className="content-sections">
      {sections.map((section, index) => (
        <section key={`${index}-${section.heading}`} className="content-section">
          {section.heading ? <h2>{section.heading}</h2> : null}
          {section.paragraphs.map((paragraph, paragraphIndex) => (
            <p key={paragraphIndex}>{paragraph}</p>
          ))}
        </section>
      ))}
    </div>
  );
}
