import type { ReactNode } from 'react';
import { LoadMoreButton, type NextPages } from '../load-more-button.tsx';
import { LoadingRegion, Skeleton, SkeletonCards, SkeletonText } from '../skeleton.tsx';
import './order-list.css';

/** The paging half of an infinite query, as My Orders and View Orders both use it. */
export interface OrderPages extends NextPages {
  isFetchNextPageError: boolean;
}

interface OrderListProps<T extends { id: string }> {
  orders: readonly T[];
  label: string;
  pages: OrderPages;
  renderOrder: (order: T) => ReactNode;
  /** "page": My Orders' own page (space below, a full-width Load more on phones); "tab": inside the order desk. */
  variant: 'page' | 'tab';
}

/** One list of order cards with "Load more" paging: the buyer's My Orders and the admin's View Orders. */
export function OrderList<T extends { id: string }>({ orders, label, pages, renderOrder, variant }: OrderListProps<T>) {
  return (
    <>
      <ul className={`order-list order-list--${variant}`} aria-label={label}>
        {orders.map((order) => (
          <li key={order.id}>{renderOrder(order)}</li>
        ))}
      </ul>
      {pages.isFetchNextPageError ? (
        <p role="alert" className="order-list__error">
          Could not load more orders. Please try again.
        </p>
      ) : null}
      <LoadMoreButton pages={pages} label="Load more" className={`button button--secondary order-list__more order-list__more--${variant}`} markBusy />
    </>
  );
}

interface OrderCardFrameProps {
  titleId: string;
  id?: string;
  /** "desk": the admin's denser card (smaller title, wider header gap). */
  variant?: 'desk';
  /** The left of the header: title, date or number, and any controls before them. */
  heading: ReactNode;
  /** The right of the header: a status badge or the admin's action buttons. */
  aside: ReactNode;
  children: ReactNode;
}

/** The card around one order; the buyer's and the admin's cards fill the slots differently. */
export function OrderCardFrame({ titleId, id, variant, heading, aside, children }: OrderCardFrameProps) {
  return (
    <article id={id} className={variant ? `panel order-card order-card--${variant}` : 'panel order-card'} aria-labelledby={titleId}>
      <header className="order-card__header">
        <div>{heading}</div>
        {aside}
      </header>
      {children}
    </article>
  );
}

/** The loading placeholder of an order list: a few skeleton cards. */
export function OrderListSkeleton({ label, count, titleWidth, titleHeight, lines }: { label: string; count: number; titleWidth: string; titleHeight: string; lines: number }) {
  return (
    <LoadingRegion label={label}>
      <div className="order-list">
        <SkeletonCards count={count} className="panel order-card">
          <Skeleton width={titleWidth} height={titleHeight} />
          <SkeletonText lines={lines} />
        </SkeletonCards>
      </div>
    </LoadingRegion>
  );
}
