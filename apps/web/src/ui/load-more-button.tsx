/** The next-page half of an infinite query. */
export interface NextPages {
  hasNextPage: boolean;
  isFetchingNextPage: boolean;
  fetchNextPage: () => Promise<unknown>;
}

/** The button that loads the next page of a list while there is one (orders, admin activity, wallet history). */
export function LoadMoreButton({
  pages,
  label,
  className = 'button button--secondary',
  markBusy = false,
}: {
  pages: NextPages;
  label: string;
  className?: string;
  markBusy?: boolean;
}) {
  if (!pages.hasNextPage) return null;
  return (
    <button
      type="button"
      className={className}
      disabled={pages.isFetchingNextPage}
      aria-busy={(markBusy && pages.isFetchingNextPage) || undefined}
      onClick={() => void pages.fetchNextPage()}
    >
      {pages.isFetchingNextPage ? 'Loading…' : label}
    </button>
  );
}
