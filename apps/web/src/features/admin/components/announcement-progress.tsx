import { errorSentence } from '../../../lib/error-message.ts';
import { toast } from '../../../lib/toast.ts';
import { ProgressBar } from '../../../ui/progress-bar.tsx';
import { useCancelAnnouncement, usePauseAnnouncement, useResumeAnnouncement, type AnnouncementReport } from '../api/announcements.ts';

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString('en-US', { dateStyle: 'medium', timeStyle: 'short' }) : '—');

/**
 * An announcement that was sent (decision 079): its progress while it sends (asked again every
 * second), pause, resume and cancel, and the report after: sent, failed, bounced, unknown,
 * skipped and unsubscribed since, with the unknown, failed and bounced addresses.
 */
export function AnnouncementProgress({ row, say }: { row: AnnouncementReport; say: (text: string) => void }) {
  const pause = usePauseAnnouncement();
  const resume = useResumeAnnouncement();
  const cancel = useCancelAnnouncement();
  const { counts } = row;
  const done = counts.total - counts.queued - counts.sending;
  const failed = (error: unknown) => toast.error(errorSentence(error, 'Could not change the sending.'));
  return (
    <section aria-labelledby="announcement-report-title">
      <h4 id="announcement-report-title">{row.status === 'sending' || row.status === 'paused' ? 'Progress' : 'Report'}</h4>
      <ProgressBar value={counts.total ? (done / counts.total) * 100 : 100} label="Sent so far" />
      <p aria-live="polite">
        {done} of {counts.total} done · started {when(row.startedAt)}
        {row.finishedAt ? ` · finished ${when(row.finishedAt)}` : ''}
      </p>
      <dl className="console-announcements__counts">
        {(
          [
            ['Sent', counts.sent],
            ['Failed', counts.failed],
            ['Bounced', counts.bounced],
            ['Unknown', counts.unknown],
            ['Skipped', counts.skipped],
            ['Waiting', counts.queued + counts.sending],
            ['Unsubscribed since', counts.unsubscribedSince],
          ] as const
        ).map(([label, value]) => (
          <div key={label}>
            <dt>{label}</dt>
            <dd data-testid={`count-${label.toLowerCase().replaceAll(' ', '-')}`}>{value}</dd>
          </div>
        ))}
      </dl>
      <div className="console__confirm-actions">
        {row.status === 'sending' ? (
          <button type="button" className="button button--secondary" onClick={() => pause.mutate(row.id, { onSuccess: () => say('Paused.'), onError: failed })}>
            Pause
          </button>
        ) : null}
        {row.status === 'paused' ? (
          <button type="button" className="button button--secondary" onClick={() => resume.mutate(row.id, { onSuccess: () => say('Resumed.'), onError: failed })}>
            Resume
          </button>
        ) : null}
        {row.status === 'sending' || row.status === 'paused' ? (
          <button type="button" className="button button--danger" onClick={() => cancel.mutate(row.id, { onSuccess: () => say('Cancelled.'), onError: failed })}>
            Cancel the sending
          </button>
        ) : null}
      </div>
      {row.unknown.length > 0 ? (
        <>
          <h5>Unknown: not sent again</h5>
          <p className="console__hint">The instance sending these stopped while handing them to the mail server: they may or may not have arrived, and are never sent twice.</p>
          <ul>
            {row.unknown.map((recipient) => (
              <li key={recipient.email}>{recipient.email}</li>
            ))}
          </ul>
        </>
      ) : null}
      {row.failed.length > 0 ? (
        <>
          <h5>Failed and bounced</h5>
          <ul>
            {row.failed.map((recipient) => (
              <li key={recipient.email}>
                {recipient.email} ({recipient.state}): {recipient.detail}
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </section>
  );
}
