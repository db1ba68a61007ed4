import { AUDIT_ACTION_LABELS, type AuditEntry } from '@storefront/domain/console.ts';
import { LoadMoreButton } from '../../../ui/load-more-button.tsx';
import { useAdminActivity } from '../api/admin-activity.ts';
import { LoadState } from './load-state.tsx';
import './console.css';

const when = new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeStyle: 'short' });

/** The fields an action changed, as "field: before → after". */
function changes(entry: AuditEntry): string[] {
  const before = (entry.before ?? {}) as Record<string, unknown>;
  const after = (entry.after ?? {}) as Record<string, unknown>;
  const show = (value: unknown) => (value === undefined ? '—' : typeof value === 'string' ? value : JSON.stringify(value));
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  if (entry.before === null || entry.after === null) {
    const only = entry.before === null ? after : before;
    return 'name' in only ? [`name: ${show(only.name)}`] : [];
  }
  const changed = keys.filter((key) => JSON.stringify(before[key]) !== JSON.stringify(after[key]));
  // A page's covers, sections or entries are long: say what changed, not the whole text.
  if (entry.targetType === 'page') {
    const short = (value: unknown) => (typeof value === 'string' && value.length <= 120 ? value : undefined);
    return changed.map((key) => {
      const [from, to] = [short(before[key]), short(after[key])];
      return from !== undefined || to !== undefined ? `${key}: ${from ?? '—'} → ${to ?? '—'}` : `${key} changed`;
    });
  }
  return changed.map((key) => `${key}: ${show(before[key])} → ${show(after[key])}`);
}

/** What the action was about, as people know it: a product's name, an account's email, else its id. */
function subject(entry: AuditEntry): string {
  const state = (entry.after ?? entry.before ?? {}) as Record<string, unknown>;
  const known = state.name ?? state.email;
  return typeof known === 'string' ? `${known} (${entry.targetId})` : entry.targetId;
}

/** Every admin action, newest first (issue 18): who, when, what, what changed. */
export function ActivityTab() {
  const activity = useAdminActivity();
  const items = activity.data?.pages.flatMap((page) => page.items) ?? [];
  return (
    <div className="console-activity">
      <h2 className="console__title">Activity</h2>
      {activity.isPending || activity.isError ? (
        <LoadState query={activity} label="Loading activity…" lines={6} failed="Could not load the activity." />
      ) : items.length === 0 ? (
        <p>No admin actions yet.</p>
      ) : (
        <ol className="console-activity__list" aria-label="Admin activity, newest first">
          {items.map((entry) => (
            <li key={entry.id} className="console-activity__entry" data-testid="activity-entry">
              <span className="console-activity__what">
                <strong>{AUDIT_ACTION_LABELS[entry.action] ?? entry.action}</strong> {entry.targetType} {subject(entry)}
              </span>
              <span className="console-activity__meta">
                by {entry.actor} · <time dateTime={entry.at}>{when.format(new Date(entry.at))}</time>
              </span>
              {changes(entry).length > 0 ? (
                <ul className="console-activity__changes">
                  {changes(entry).map((line) => (
                    <li key={line}>{line}</li>
                  ))}
                </ul>
              ) : null}
            </li>
          ))}
        </ol>
      )}
      <LoadMoreButton pages={activity} label="Load more" />
    </div>
  );
}
