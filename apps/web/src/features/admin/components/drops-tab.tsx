import { useState, type FormEvent } from 'react';
import { errorSentence } from '../../../lib/error-message.ts';
import { paths } from '../../../lib/paths.ts';
import { Link, useParams } from '../../../lib/router.tsx';
import { Badge } from '../../../ui/badge.tsx';
import { DataTable } from '../../../ui/data-table.tsx';
import {
  getDropReportCsv,
  useCancelDrop,
  useConsoleDrops,
  useDropReport,
  useEditDrop,
  usePostponeDrop,
  useScheduleDrop,
  useWaitingDemand,
  type ConsoleDrop,
} from '../api/drops.ts';
import { DropForm, draftOf, EMPTY_DROP, localInput } from './drop-form.tsx';
import { LoadState } from './load-state.tsx';
import './console.css';
import './drops-tab.css';

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString('en-US', { dateStyle: 'medium', timeStyle: 'medium' }) : '—');
const STATUS_TONE = { scheduled: 'pending', postponed: 'pending', live: 'success', 'sold-out': 'neutral', cancelled: 'danger' } as const;

/**
 * The console's Drops tab (issue 35, decision 069), /release/drops: every drop with its figures,
 * scheduling a new one, and the waiting demand per variant; /release/drops/<id> opens one drop:
 * edit, postpone, cancel, its report and CSV.
 */
export function DropsTab() {
  const { dropId } = useParams();
  const drops = useConsoleDrops();
  const [announcement, setAnnouncement] = useState('');
  const open = dropId ? drops.data?.find((drop) => drop.id === dropId) : undefined;

  return (
    <div className="console-drops">
      <p role="status" className="visually-hidden">
        {announcement}
      </p>
      {dropId ? (
        <>
          <p>
            <Link to={paths.releaseTab('drops')} state={{ keepFocus: true }}>
              <span aria-hidden="true">← </span>All drops
            </Link>
          </p>
          {drops.isPending || drops.isError ? (
            <LoadState query={drops} label="Loading the drop…" lines={6} failed="Could not load the drops." />
          ) : open ? (
            <DropDetail key={open.id} drop={open} announce={setAnnouncement} />
          ) : (
            <p role="alert">This drop does not exist.</p>
          )}
        </>
      ) : (
        <>
          <h2 className="console__title">Drops</h2>
          <p className="console__hint">
            A drop sells its products through a fair queue: fans join before the start (the pre-queue, shuffled by a committed seed at the start) or after it (in join order), and
            are admitted only while units are left, each with a window to check out.
          </p>
          {drops.isPending || drops.isError ? (
            <LoadState query={drops} label="Loading the drops…" lines={4} failed="Could not load the drops." />
          ) : drops.data.length === 0 ? (
            <p className="console__hint">No drops yet.</p>
          ) : (
            <div className="console-discounts__scroll" role="region" aria-label="Drops" tabIndex={0}>
              <DataTable
                caption="Drops"
                rows={drops.data}
                rowKey={(drop) => drop.id}
                columns={[
                  { header: 'Drop', rowHeader: true, cell: (drop) => <Link to={paths.releaseDrop(drop.id)}>{drop.name}</Link> },
                  { header: 'Status', cell: (drop) => <Badge tone={STATUS_TONE[drop.status]}>{drop.status}</Badge> },
                  { header: 'Starts', cell: (drop) => when(drop.startsAt) },
                  { header: 'Entrants', cell: (drop) => drop.entrants },
                  { header: 'Admitted now', cell: (drop) => drop.admittedNow },
                  { header: 'Bought', cell: (drop) => drop.bought },
                  { header: 'Units left', cell: (drop) => unitsLeft(drop) },
                ]}
              />
            </div>
          )}
          <section aria-labelledby="new-drop-title" className="console-drops__new">
            <h3 id="new-drop-title">Schedule a drop</h3>
            <NewDrop announce={setAnnouncement} />
          </section>
          <WaitingDemand />
        </>
      )}
    </div>
  );
}

function unitsLeft(drop: ConsoleDrop): string {
  if (drop.items.some((item) => item.unitsLeft === null)) return 'No count';
  return String(drop.items.reduce((sum, item) => sum + (item.unitsLeft ?? 0), 0));
}

function NewDrop({ announce }: { announce: (text: string) => void }) {
  const schedule = useScheduleDrop();
  const [formKey, setFormKey] = useState(0);
  return (
    <DropForm
      key={formKey}
      initial={EMPTY_DROP}
      submitLabel="Schedule drop"
      busy={schedule.isPending}
      onSubmit={(input, done) =>
        schedule.mutate(input, {
          onSuccess: (drop) => {
            done();
            setFormKey((n) => n + 1);
            announce(`Drop ${drop.name} scheduled.`);
          },
          onError: (error) => done(error),
        })
      }
    />
  );
}

function DropDetail({ drop, announce }: { drop: ConsoleDrop; announce: (text: string) => void }) {
  const edit = useEditDrop();
  const changeable = drop.status === 'scheduled' || drop.status === 'postponed';
  return (
    <article className="console-drops__detail" aria-labelledby="drop-detail-title">
      <h2 id="drop-detail-title" className="console__title">
        {drop.name} <Badge tone={STATUS_TONE[drop.status]}>{drop.status}</Badge>
      </h2>
      <p>
        <Link to={paths.drop(drop.slug)}>The drop&apos;s page</Link> · <Link to={paths.dropFairness(drop.slug)}>Its fairness page</Link>
      </p>
      <dl className="console-drops__facts">
        <dt>Starts</dt>
        <dd>{when(drop.startsAt)}</dd>
        <dt>Queue opens</dt>
        <dd>{when(drop.queueOpensAt)}</dd>
        <dt>In the drop</dt>
        <dd>{drop.items.map((item) => `${item.name} (${item.unitsLeft === null ? 'no count' : `${item.unitsLeft} left`})`).join(', ')}</dd>
        <dt>Limit, pace, window</dt>
        <dd>
          {drop.perCustomerLimit} per customer; {drop.admissionsPerMinute} admitted a minute, at most {drop.maxAdmitted} at once; {drop.checkoutWindowSeconds} s to check out; bot
          check {drop.challenge ? 'on' : 'off'}
        </dd>
        <dt>Commitment (SHA-256 of the seed)</dt>
        <dd>
          <code className="console-drops__hash">{drop.seedHash}</code>
        </dd>
        {drop.note ? (
          <>
            <dt>Note to the entrants</dt>
            <dd>{drop.note}</dd>
          </>
        ) : null}
      </dl>
      <DropReportView drop={drop} />
      {changeable ? (
        <>
          <section aria-labelledby="edit-drop-title">
            <h3 id="edit-drop-title">Edit</h3>
            <DropForm
              initial={draftOf(drop)}
              submitLabel="Save changes"
              busy={edit.isPending}
              onSubmit={(input, done) => {
                // Times left as they were are not sent: an unchanged start in the past would be refused.
                const before = draftOf(drop);
                const startsAt = localInput(input.startsAt) === before.startsAt ? undefined : input.startsAt;
                const queueOpensAt = localInput(input.queueOpensAt) === before.queueOpensAt ? undefined : input.queueOpensAt;
                edit.mutate(
                  { ...input, dropId: drop.id, startsAt, queueOpensAt },
                  {
                    onSuccess: () => {
                      done();
                      announce(`Drop ${drop.name} saved.`);
                    },
                    onError: (error) => done(error),
                  },
                );
              }}
            />
          </section>
          <PostponeDrop drop={drop} announce={announce} />
        </>
      ) : null}
      {changeable || drop.status === 'live' ? <CancelDrop drop={drop} announce={announce} /> : null}
    </article>
  );
}

function PostponeDrop({ drop, announce }: { drop: ConsoleDrop; announce: (text: string) => void }) {
  const postpone = usePostponeDrop();
  const [startsAt, setStartsAt] = useState('');
  const [note, setNote] = useState('');
  const [problem, setProblem] = useState('');
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!startsAt || Number.isNaN(Date.parse(startsAt))) {
      setProblem('Choose the new start.');
      return;
    }
    postpone.mutate(
      { dropId: drop.id, startsAt: new Date(startsAt).toISOString(), ...(note.trim() ? { note: note.trim() } : {}) },
      {
        onSuccess: () => {
          setProblem('');
          announce(`Drop ${drop.name} postponed.`);
        },
        onError: (error) => setProblem(errorSentence(error, 'Could not postpone the drop.')),
      },
    );
  };
  return (
    <form className="console-discounts__form" onSubmit={submit} noValidate aria-labelledby="postpone-drop-title">
      <h3 id="postpone-drop-title">Postpone</h3>
      <p className="console__hint">Entries keep their numbers and the seed stays; everyone in the queue is told.</p>
      <label htmlFor="postpone-starts">New start</label>
      <input id="postpone-starts" type="datetime-local" step={1} value={startsAt} onChange={(event) => setStartsAt(event.target.value)} />
      <label htmlFor="postpone-note">Note to the entrants (optional)</label>
      <input id="postpone-note" value={note} maxLength={500} onChange={(event) => setNote(event.target.value)} />
      <div role="alert" className="console-discounts__problem">
        {problem}
      </div>
      <button type="submit" className="button button--secondary" disabled={postpone.isPending}>
        Postpone drop
      </button>
    </form>
  );
}

function CancelDrop({ drop, announce }: { drop: ConsoleDrop; announce: (text: string) => void }) {
  const cancel = useCancelDrop();
  const [note, setNote] = useState('');
  const [confirming, setConfirming] = useState(false);
  return (
    <section className="console-discounts__form" aria-labelledby="cancel-drop-title">
      <h3 id="cancel-drop-title">Cancel</h3>
      <p className="console__hint">The entries are kept and told; admissions end and the products sell as usual again.</p>
      <label htmlFor="cancel-note">Note to the entrants (optional)</label>
      <input id="cancel-note" value={note} maxLength={500} onChange={(event) => setNote(event.target.value)} />
      {confirming ? (
        <div className="console__confirm-actions">
          <button
            type="button"
            className="button"
            disabled={cancel.isPending}
            onClick={() =>
              cancel.mutate(
                { dropId: drop.id, ...(note.trim() ? { note: note.trim() } : {}) },
                {
                  onSuccess: () => {
                    setConfirming(false);
                    announce(`Drop ${drop.name} cancelled.`);
                  },
                },
              )
            }
          >
            Yes, cancel {drop.name}
          </button>
          <button type="button" className="button button--secondary" onClick={() => setConfirming(false)}>
            Keep it
          </button>
        </div>
      ) : (
        <button type="button" className="button button--secondary" onClick={() => setConfirming(true)}>
          Cancel drop…
        </button>
      )}
      {cancel.isError ? <p role="alert">{errorSentence(cancel.error, 'Could not cancel the drop.')}</p> : null}
    </section>
  );
}

const seconds = (value: number | null) => (value === null ? '—' : `${Math.round(value * 10) / 10} s`);

function DropReportView({ drop }: { drop: ConsoleDrop }) {
  const report = useDropReport(drop.id);
  const [csvProblem, setCsvProblem] = useState('');
  const download = async () => {
    setCsvProblem('');
    try {
      const { filename, csv } = await getDropReportCsv(drop.id);
      const url = URL.createObjectURL(new Blob([csv], { type: 'text/csv;charset=utf-8' }));
      const link = document.createElement('a');
      link.href = url;
      link.download = filename;
      link.click();
      setTimeout(() => URL.revokeObjectURL(url), 1000);
    } catch (error) {
      setCsvProblem(errorSentence(error, 'Could not make the CSV.'));
    }
  };
  return (
    <section aria-labelledby="drop-report-title" className="console-drops__report">
      <h3 id="drop-report-title">Report</h3>
      {report.isPending || report.isError ? (
        <LoadState query={report} label="Loading the report…" lines={6} failed="Could not load the report." />
      ) : (
        <dl className="console-drops__facts" data-testid="drop-report">
          <dt>Entrants</dt>
          <dd>{report.data.entrants}</dd>
          <dt>Bot check failures</dt>
          <dd>{report.data.challengeFailures}</dd>
          <dt>Admitted</dt>
          <dd>{report.data.admitted}</dd>
          <dt>Bought</dt>
          <dd>
            {report.data.bought} fans, {report.data.unitsSold} units
          </dd>
          <dt>Units per buyer</dt>
          <dd>{report.data.unitsPerBuyer.length === 0 ? '—' : report.data.unitsPerBuyer.map((row) => `${row.units}: ${row.buyers}`).join(', ')}</dd>
          <dt>Start to sold out</dt>
          <dd>{seconds(report.data.secondsToSoldOut)}</dd>
          <dt>Wait (median, p95)</dt>
          <dd>
            {seconds(report.data.medianWaitSeconds)}, {seconds(report.data.p95WaitSeconds)}
          </dd>
          <dt>Seed</dt>
          <dd>{report.data.seed ? <code className="console-drops__hash">{report.data.seed}</code> : 'Revealed at the start'}</dd>
          <dt>Seed matches its commitment</dt>
          <dd>{report.data.seedMatchesCommitment === null ? '—' : report.data.seedMatchesCommitment ? 'Yes' : 'No'}</dd>
          <dt>Admissions in order</dt>
          <dd>
            {Math.round(report.data.inOrderShare * 1000) / 10}% ({report.data.admissionsOutOfOrder} out of order)
          </dd>
        </dl>
      )}
      <button type="button" className="button button--secondary" onClick={() => void download()}>
        Download the report (CSV)
      </button>
      {csvProblem ? <p role="alert">{csvProblem}</p> : null}
    </section>
  );
}

/** The waiting demand per variant, to size a repress (issue 35 item 5). */
function WaitingDemand() {
  const demand = useWaitingDemand();
  return (
    <section aria-labelledby="demand-title" className="console-drops__demand">
      <h3 id="demand-title">Waiting demand</h3>
      <p className="console__hint">Fans on each variant&apos;s waitlist (and those holding an offer now): a unit that comes back goes to them in order.</p>
      {demand.isPending || demand.isError ? (
        <LoadState query={demand} label="Loading the waitlists…" lines={3} failed="Could not load the waitlists." />
      ) : demand.data.length === 0 ? (
        <p className="console__hint">Nobody is waiting.</p>
      ) : (
        <DataTable
          caption="Waitlists"
          rows={demand.data}
          rowKey={(row) => row.variantId}
          columns={[
            { header: 'Variant', rowHeader: true, cell: (row) => <Link to={paths.product(row.productId)}>{row.name}</Link> },
            { header: 'Waiting', cell: (row) => row.waiting },
            { header: 'Offered now', cell: (row) => row.offered },
          ]}
        />
      )}
    </section>
  );
}
