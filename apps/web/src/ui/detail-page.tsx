import type { ReactNode } from 'react';
import { Link } from '../lib/router.tsx';
import { LoadingRegion, Skeleton, SkeletonText } from './skeleton.tsx';

/*
 * The parts a detail page (a product, an owned DAT) has around its content; each page keeps
 * its own classes (`page`: the section's, e.g. "product-page"; `layout`: the two-column block's).
 */

/** The small "← Back to …" link above the content. */
export function BackLink({ className, to, label }: { className: string; to: string; label: string }) {
  return (
    <p className={className}>
      <Link to={to}>
        <span aria-hidden="true">← </span>
        {label}
      </Link>
    </p>
  );
}

/** What shows when the thing is not there (any more): a heading, a line and a way on. */
export function DetailNotFound({ page, title, lead, children }: { page: string; title: string; lead: string; children: ReactNode }) {
  return (
    <section className={`page ${page}`}>
      <h1>{title}</h1>
      <p className="page-lead">{lead}</p>
      {children}
    </section>
  );
}

/** The placeholder while it loads: the square image, then the title, one shorter line and text. */
export function DetailLoading({ page, label, layout, line }: { page: string; label: string; layout: string; line: { width: string; height: string } }) {
  return (
    <section className={`page ${page}`}>
      <LoadingRegion label={label}>
        <div className={layout}>
          <Skeleton aspectRatio="1 / 1" width="100%" />
          <div className={`${layout}__info`}>
            <Skeleton width="70%" height="2.5rem" />
            <Skeleton width={line.width} height={line.height} />
            <SkeletonText lines={4} />
          </div>
        </div>
      </LoadingRegion>
    </section>
  );
}
