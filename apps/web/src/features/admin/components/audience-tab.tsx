import { useId, useRef, useState, type FormEvent } from 'react';
import type { AudienceImportReport } from '@storefront/domain/audience.ts';
import { errorSentence } from '../../../lib/error-message.ts';
import { DataTable } from '../../../ui/data-table.tsx';
import { AUDIENCE_CSV_URL, useAudience, useImportAudience, type Audience } from '../api/audience.ts';
import { LoadState } from './load-state.tsx';
import { ReminderSettings } from './reminder-settings.tsx';
import './console.css';
import './audience-tab.css';

const plural = (n: number, one: string, many: string) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

/**
 * The label's list (issue 37 part 6, decision 078): followers of the label and of each artist,
 * consenting fans, unsubscribes and the last weeks' growth; the consenting fans as a CSV
 * download; an import of fans who consented elsewhere (Bandcamp's mailing-list export among the
 * files it reads) with its report; and the cart reminder's setting (part 7).
 */
export function AudienceTab() {
  const audience = useAudience();
  return (
    <div className="console-audience">
      <h2 className="console__title">Audience</h2>
      {audience.data ? <Figures audience={audience.data} /> : <LoadState query={audience} label="Loading the audience…" lines={4} failed="Could not load the audience." />}
      <section aria-labelledby="audience-export" className="console-audience__section">
        <h3 id="audience-export">Export</h3>
        <p className="console__hint">Every fan who said yes to news: address, name, country, when and how they consented, and what they follow.</p>
        <a className="button button--secondary" href={AUDIENCE_CSV_URL} download>
          Download consenting fans (CSV)
        </a>
      </section>
      <ImportForm />
      <ReminderSettings />
    </div>
  );
}

function Figures({ audience }: { audience: Audience }) {
  return (
    <>
      <dl className="console-audience__figures">
        <div>
          <dt>Consenting fans</dt>
          <dd>{audience.consenting.toLocaleString('en-US')}</dd>
        </div>
        <div>
          <dt>Followers</dt>
          <dd>{audience.followers.fans.toLocaleString('en-US')}</dd>
        </div>
        <div>
          <dt>Following the label</dt>
          <dd>{audience.followers.label.toLocaleString('en-US')}</dd>
        </div>
        <div>
          <dt>Unsubscribed</dt>
          <dd>{audience.unsubscribed.toLocaleString('en-US')}</dd>
        </div>
        <div>
          <dt>Awaiting confirmation</dt>
          <dd>{audience.pending.toLocaleString('en-US')}</dd>
        </div>
        <div>
          <dt>Imported</dt>
          <dd>{audience.imported.toLocaleString('en-US')}</dd>
        </div>
      </dl>
      <div className="console-audience__scroll" role="region" aria-label="Followers per artist" tabIndex={0}>
        {audience.followers.artists.length === 0 ? (
          <p>No artist has followers yet.</p>
        ) : (
          <DataTable
            caption="Followers per artist"
            className="console-audience__table"
            rows={audience.followers.artists}
            rowKey={(artist) => artist.id}
            columns={[
              { header: 'Artist', cell: (artist) => artist.name, rowHeader: true },
              { header: 'Followers', cell: (artist) => artist.followers.toLocaleString('en-US'), className: 'console-audience__number' },
            ]}
          />
        )}
      </div>
      <div className="console-audience__scroll" role="region" aria-label="Growth by week" tabIndex={0}>
        <DataTable
          caption="Growth by week"
          className="console-audience__table"
          rows={[...audience.weeks].reverse()}
          rowKey={(week) => week.week}
          columns={[
            { header: 'Week of', cell: (week) => week.week, rowHeader: true },
            { header: 'New consents', cell: (week) => week.consents.toLocaleString('en-US'), className: 'console-audience__number' },
            { header: 'Unsubscribes', cell: (week) => week.unsubscribes.toLocaleString('en-US'), className: 'console-audience__number' },
            { header: 'New follows', cell: (week) => week.follows.toLocaleString('en-US'), className: 'console-audience__number' },
          ]}
        />
      </div>
    </>
  );
}

function ImportForm() {
  const fileId = useId();
  const hintId = useId();
  const file = useRef<HTMLInputElement>(null);
  const importing = useImportAudience();
  const [report, setReport] = useState<AudienceImportReport | null>(null);
  const [error, setError] = useState<string | null>(null);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const chosen = file.current?.files?.[0];
    setReport(null);
    if (!chosen) {
      setError('Choose a CSV file to import.');
      return;
    }
    setError(null);
    importing.mutate(chosen, {
      onSuccess: (answer) => setReport(answer),
      onError: (failure) => setError(errorSentence(failure, 'Could not import the file.')),
    });
  };

  return (
    <section aria-labelledby="audience-import" className="console-audience__section">
      <h3 id="audience-import">Import fans who consented elsewhere</h3>
      <p className="console__hint" id={hintId}>
        A CSV with a header row naming an email column and the date each fan consented: Bandcamp’s mailing-list export works as it is. Up to 100,000 rows and 20 MB. Each address is
        kept once; an address that unsubscribed here stays unsubscribed.
      </p>
      <form className="console-audience__import" onSubmit={submit} noValidate>
        <label htmlFor={fileId}>CSV file</label>
        <input id={fileId} ref={file} type="file" accept=".csv,text/csv" aria-describedby={hintId} />
        <button type="submit" className="button" disabled={importing.isPending}>
          {importing.isPending ? 'Importing…' : 'Import fans'}
        </button>
      </form>
      <div role="status" aria-live="polite">
        {error ? <p className="console-audience__error">{error}</p> : null}
        {report ? (
          <p>
            Import done: {plural(report.rows, 'row', 'rows')} read, {report.added.toLocaleString('en-US')} added, {report.merged.toLocaleString('en-US')} merged,{' '}
            {report.refused.toLocaleString('en-US')} refused.
          </p>
        ) : null}
      </div>
      {report && report.refusals.length > 0 ? (
        <div className="console-audience__scroll" role="region" aria-label="Refused rows" tabIndex={0}>
          <DataTable
            caption={report.refusals.length < report.refused ? `Refused rows (the first ${report.refusals.length})` : 'Refused rows'}
            className="console-audience__table"
            rows={report.refusals}
            rowKey={(refusal) => refusal.line}
            columns={[
              { header: 'Line', cell: (refusal) => refusal.line, rowHeader: true, className: 'console-audience__number' },
              { header: 'Address', cell: (refusal) => refusal.email || '—' },
              { header: 'Why', cell: (refusal) => refusal.reason },
            ]}
          />
        </div>
      ) : null}
    </section>
  );
}
