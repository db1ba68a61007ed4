import { ErrorState } from '../../../ui/error-state.tsx';
import { LoadingRegion, Skeleton } from '../../../ui/skeleton.tsx';
import { useSite } from '../../../lib/site.ts';
import './content.css';

export function ContactPage() {
  const { data: site, isPending, isError, refetch } = useSite();

  return (
    <section className="page text-page">
      <h1>Contact</h1>
      <p className="page-lead">Questions about an order, a release or a booking? Send us an email and the label will get back to you.</p>
      {isPending ? (
        <LoadingRegion label="Loading the contact address…">
          <Skeleton width="16rem" height="1.5rem" />
        </LoadingRegion>
      ) : isError ? (
        <ErrorState title="The contact address could not be loaded." message="Check your connection and try again." onRetry={() => void refetch()} />
      ) : (
        <p className="contact-email">
          Email us at <a href={`mailto:${site.contactEmail}`}>{site.contactEmail}</a>
        </p>
      )}
    </section>
  );
}
