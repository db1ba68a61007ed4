import { Badge } from '../../../ui/badge.tsx';
import { ErrorState } from '../../../ui/error-state.tsx';
import { LoadingRegion, Skeleton, SkeletonCards } from '../../../ui/skeleton.tsx';
import { useHistory } from '../api/list-history.ts';
import type { TimelineEntry } from '../types.ts';
import { COMING_SOON } from '../messages.ts';
import { ComingSoon } from './coming-soon.tsx';
import './content.css';

const dateFormat = new Intl.DateTimeFormat('en-US', {
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  timeZone: 'UTC',
});

/** `releasedOn` is a calendar date; read it in UTC so no time zone shifts it a day. */
function formatReleaseDate(releasedOn: string): string {
  const date = new Date(/^\d{4}-\d{2}-\d{2}$/.test(releasedOn) ? `${releasedOn}T00:00:00Z` : releasedOn);
  return Number.isNaN(date.getTime()) ? releasedOn : dateFormat.format(date);
}

function groupByYear(entries: TimelineEntry[]): [number, TimelineEntry[]][] {
  const years = new Map<number, TimelineEntry[]>();
  for (const entry of entries) {
    const group = years.get(entry.year);
    if (group) group.push(entry);
    else years.set(entry.year, [entry]);
  }
  return [...years];
}

export function HistoryPage() {
  const { data: entries, isPending, isError, refetch } = useHistory();

  return (
    <section className="page history-page">
      <h1>History</h1>
      {entries?.length === 0 ? null : <p className="page-lead">Three decades of releases, from the first record to the latest.</p>}
      {isPending ? (
        <LoadingRegion label="Loading the timeline…">
          <ol className="timeline">
            <SkeletonCards count={6} className="timeline__entry" as="li">
              <Skeleton width="6rem" />
              <Skeleton width="60%" height="1.3rem" />
            </SkeletonCards>
          </ol>
        </LoadingRegion>
      ) : isError ? (
        <ErrorState title="The timeline could not be loaded." message="Check your connection and try again." onRetry={() => void refetch()} />
      ) : entries.length === 0 ? (
        <ComingSoon {...COMING_SOON.history} />
      ) : (
        <ol className="timeline">
          {groupByYear(entries).map(([year, yearEntries]) => (
            <li key={year} className="timeline__year">
              <h2 className="timeline__year-heading">{year}</h2>
              <ol className="timeline__entries">
                {yearEntries.map((entry) => (
                  <li key={entry.id} className="timeline__entry">
                    <time className="timeline__date" dateTime={entry.releasedOn}>
                      {formatReleaseDate(entry.releasedOn)}
                    </time>
                    <span className="timeline__title">{entry.title}</span>
                    {entry.format ? <Badge>{entry.format}</Badge> : null}
                    {entry.note ? <p className="timeline__note">{entry.note}</p> : null}
                  </li>
                ))}
              </ol>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
