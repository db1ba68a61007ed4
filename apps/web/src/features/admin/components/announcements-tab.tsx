import { useState, type ChangeEvent, type FormEvent } from 'react';
import { errorSentence } from '../../../lib/error-message.ts';
import { toast } from '../../../lib/toast.ts';
import { isImageFile, uploadContentImage, uploadErrorMessage } from '../../../lib/uploads.ts';
import { Badge } from '../../../ui/badge.tsx';
import { DataTable } from '../../../ui/data-table.tsx';
import { ProgressBar } from '../../../ui/progress-bar.tsx';
import {
  useAnnouncement,
  useAnnouncementAutomations,
  useAnnouncementPreview,
  useAnnouncements,
  useSaveAnnouncement,
  useSendAnnouncement,
  useSendAnnouncementTest,
  useSetAnnouncementAutomation,
  type AnnouncementReport,
  type ConsoleAnnouncement,
} from '../api/announcements.ts';
import { useConsoleDrops } from '../api/drops.ts';
import { useAllProducts } from '../api/console-products.ts';
import { useConsoleReleases } from '../api/music.ts';
import { useRoster } from '../api/roster.ts';
import { AnnouncementProgress } from './announcement-progress.tsx';
import { LoadState } from './load-state.tsx';
import './console.css';

type LinkKind = 'release' | 'product' | 'drop';
interface Draft {
  subject: string;
  body: string;
  image: string;
  linkKind: '' | LinkKind;
  linkId: string;
  toLabel: boolean;
  artistIds: number[];
}
const EMPTY: Draft = { subject: '', body: '', image: '', linkKind: '', linkId: '', toLabel: true, artistIds: [] };
const STATUS_TONE = { draft: 'neutral', sending: 'pending', paused: 'pending', cancelled: 'danger', sent: 'success' } as const;
const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString('en-US', { dateStyle: 'medium', timeStyle: 'short' }) : '—');

const draftOf = (row: ConsoleAnnouncement): Draft => ({
  subject: row.subject,
  body: row.body,
  image: row.image,
  linkKind: row.link?.kind ?? '',
  linkId: row.link?.id ?? '',
  toLabel: row.toLabel,
  artistIds: row.artistIds,
});

/**
 * The console's Announcements tab (issue 37 part 3, decision 079): write one (subject, text, an
 * image, a link to a release, product or drop, to the label's followers or chosen artists'),
 * preview it as mail, send yourself a test, send it to the consenting followers; watch it go
 * (pause, resume, cancel) and read its report.
 */
export function AnnouncementsTab() {
  const list = useAnnouncements();
  const [openId, setOpenId] = useState<number | 'new' | null>(null);
  const [said, say] = useState('');
  return (
    <div className="console-announcements">
      <p role="status" className="visually-hidden">
        {said}
      </p>
      <h2 className="console__title">Announcements</h2>
      <p className="console__hint">
        An announcement goes by mail to the fans who follow the label (and those who signed up for its news) or the artists you choose, and only to those who said yes to news. Each
        mail has a one-click unsubscribe.
      </p>
      {openId === null ? (
        <>
          <button type="button" className="button" onClick={() => setOpenId('new')}>
            New announcement
          </button>
          {list.isPending || list.isError ? (
            <LoadState query={list} label="Loading the announcements…" lines={3} failed="Could not load the announcements." />
          ) : list.data.length === 0 ? (
            <p className="console__hint">No announcements yet.</p>
          ) : (
            <DataTable
              caption="Announcements"
              rows={list.data}
              rowKey={(row) => String(row.id)}
              columns={[
                {
                  header: 'Subject',
                  rowHeader: true,
                  cell: (row) => (
                    <button type="button" className="link-button" onClick={() => setOpenId(row.id)}>
                      {row.subject}
                    </button>
                  ),
                },
                { header: 'Status', cell: (row) => <Badge tone={STATUS_TONE[row.status]}>{row.status}</Badge> },
                { header: 'Sent', cell: (row) => (row.status === 'draft' ? '—' : `${row.counts.sent} of ${row.counts.total}`) },
                { header: 'Started', cell: (row) => when(row.startedAt) },
              ]}
            />
          )}
          <Automations say={say} />
        </>
      ) : (
        <>
          <p>
            <button type="button" className="link-button" onClick={() => setOpenId(null)}>
              <span aria-hidden="true">← </span>All announcements
            </button>
          </p>
          {openId === 'new' ? (
            <Editor
              initial={EMPTY}
              id={null}
              onSaved={(id) => {
                setOpenId(id);
                say('Draft saved.');
              }}
            />
          ) : (
            <Opened id={openId} say={say} />
          )}
        </>
      )}
    </div>
  );
}

const AUTOMATION_LABELS = {
  'release-live': 'When a release goes live (its street date comes)',
  'preorder-open': 'When a product opens for preorder',
  'drop-scheduled': 'When a drop is scheduled',
} as const;

/** The automatic announcements (decision 079): each kind sends one announcement per event to the label's and the credited artists' consenting followers. */
function Automations({ say }: { say: (text: string) => void }) {
  const automations = useAnnouncementAutomations();
  const change = useSetAnnouncementAutomation();
  return (
    <fieldset className="console-announcements__automations">
      <legend>Send an announcement automatically</legend>
      <p className="console__hint">Each goes once per event, to the consenting followers of the label and of the artists credited.</p>
      {(automations.data ?? []).map(({ kind, enabled }) => (
        <label key={kind} className="console-discounts__check">
          <input
            type="checkbox"
            checked={enabled}
            disabled={change.isPending}
            onChange={(event) =>
              change.mutate(
                { kind, enabled: event.target.checked },
                {
                  onSuccess: () => say(`${AUTOMATION_LABELS[kind]}: ${event.target.checked ? 'on' : 'off'}.`),
                  onError: (error) => toast.error(errorSentence(error, 'Could not change the setting.')),
                },
              )
            }
          />{' '}
          {AUTOMATION_LABELS[kind]}
        </label>
      ))}
    </fieldset>
  );
}

function Opened({ id, say }: { id: number; say: (text: string) => void }) {
  const one = useAnnouncement(id);
  if (one.isPending || one.isError) return <LoadState query={one} label="Loading the announcement…" lines={4} failed="Could not load the announcement." />;
  const row = one.data;
  return (
    <article aria-labelledby="announcement-title">
      <h3 id="announcement-title">
        {row.subject} <Badge tone={STATUS_TONE[row.status]}>{row.status}</Badge>
      </h3>
      {row.status === 'draft' ? (
        <>
          <Editor key={row.id} initial={draftOf(row)} id={row.id} onSaved={() => say('Draft saved.')} />
          <Preview id={row.id} />
          <SendControls row={row} say={say} />
        </>
      ) : (
        <AnnouncementProgress row={row} say={say} />
      )}
    </article>
  );
}

function Editor({ initial, id, onSaved }: { initial: Draft; id: number | null; onSaved: (id: number) => void }) {
  const save = useSaveAnnouncement();
  const roster = useRoster();
  const products = useAllProducts();
  const releases = useConsoleReleases();
  const drops = useConsoleDrops();
  const [draft, setDraft] = useState<Draft>(initial);
  const [uploading, setUploading] = useState<number | null>(null);
  const [problem, setProblem] = useState('');
  const set = <K extends keyof Draft>(key: K, value: Draft[K]) => setDraft((current) => ({ ...current, [key]: value }));
  const choices: Record<LinkKind, { id: string; name: string }[]> = {
    product: (products.data?.products ?? []).map((product) => ({ id: product.id, name: product.name })),
    release: (releases.data?.releases ?? []).map((release) => ({ id: String(release.id), name: `${release.title} — ${release.artist}` })),
    drop: (drops.data ?? []).map((drop) => ({ id: drop.id, name: drop.name })),
  };

  const upload = (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    event.target.value = '';
    if (!file) return;
    if (!isImageFile(file)) {
      toast.error('Please choose an image file.');
      return;
    }
    setUploading(0);
    uploadContentImage(file, setUploading)
      .url.then(
        (image) => set('image', image),
        (error: unknown) => toast.error(uploadErrorMessage(error, 'The image could not be uploaded.')),
      )
      .finally(() => setUploading(null));
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (uploading !== null) {
      setProblem('Please wait until the image is uploaded.');
      return;
    }
    save.mutate(
      {
        id,
        subject: draft.subject,
        body: draft.body,
        image: draft.image,
        link: draft.linkKind && draft.linkId ? { kind: draft.linkKind, id: draft.linkId } : null,
        toLabel: draft.toLabel,
        artistIds: draft.artistIds,
      },
      {
        onSuccess: (saved) => {
          setProblem('');
          onSaved(saved.id);
        },
        onError: (error) => setProblem(errorSentence(error, 'Could not save the announcement.')),
      },
    );
  };

  return (
    <form className="console-discounts__form" onSubmit={submit} noValidate aria-label={id ? 'Edit the announcement' : 'New announcement'}>
      <label htmlFor="announcement-subject">Subject</label>
      <input id="announcement-subject" maxLength={150} value={draft.subject} onChange={(event) => set('subject', event.target.value)} />
      <label htmlFor="announcement-body">Text</label>
      <textarea id="announcement-body" rows={8} maxLength={10_000} value={draft.body} onChange={(event) => set('body', event.target.value)} />
      <label htmlFor="announcement-image">Image (optional)</label>
      <input id="announcement-image" type="file" accept="image/*" onChange={upload} />
      {uploading !== null ? <ProgressBar value={uploading} label="Uploading the image" /> : null}
      {draft.image ? (
        <p>
          <img src={draft.image} alt="The announcement's image" style={{ maxWidth: '12rem', height: 'auto' }} />{' '}
          <button type="button" className="button button--secondary button--small" onClick={() => set('image', '')}>
            Remove the image
          </button>
        </p>
      ) : null}
      <label htmlFor="announcement-link-kind">Link to</label>
      <select
        id="announcement-link-kind"
        value={draft.linkKind}
        onChange={(event) => setDraft((current) => ({ ...current, linkKind: event.target.value as Draft['linkKind'], linkId: '' }))}
      >
        <option value="">Nothing</option>
        <option value="release">A release</option>
        <option value="product">A product</option>
        <option value="drop">A drop</option>
      </select>
      {draft.linkKind ? (
        <>
          <label htmlFor="announcement-link">Which {draft.linkKind}</label>
          <select id="announcement-link" value={draft.linkId} onChange={(event) => set('linkId', event.target.value)}>
            <option value="">Choose…</option>
            {choices[draft.linkKind].map((choice) => (
              <option key={choice.id} value={choice.id}>
                {choice.name}
              </option>
            ))}
          </select>
        </>
      ) : null}
      <fieldset>
        <legend>Send to the followers of</legend>
        <label className="console-discounts__check">
          <input type="checkbox" checked={draft.toLabel} onChange={(event) => set('toLabel', event.target.checked)} /> The label
        </label>
        {(roster.data?.artists ?? []).map((artist) => (
          <label key={artist.id} className="console-discounts__check">
            <input
              type="checkbox"
              checked={draft.artistIds.includes(artist.id)}
              onChange={(event) => set('artistIds', event.target.checked ? [...draft.artistIds, artist.id] : draft.artistIds.filter((other) => other !== artist.id))}
            />{' '}
            {artist.name}
          </label>
        ))}
      </fieldset>
      {problem ? (
        <p role="alert" className="console-discounts__problem">
          {problem}
        </p>
      ) : null}
      <button type="submit" className="button" disabled={save.isPending}>
        Save draft
      </button>
    </form>
  );
}

function Preview({ id }: { id: number }) {
  const [shown, setShown] = useState(false);
  const preview = useAnnouncementPreview(id, shown);
  return (
    <section aria-labelledby="announcement-preview-title">
      <h4 id="announcement-preview-title">Preview</h4>
      <button type="button" className="button button--secondary" onClick={() => (shown ? void preview.refetch() : setShown(true))}>
        {shown ? 'Refresh the preview' : 'Preview as mail'}
      </button>
      {shown && preview.data ? (
        <>
          <p>
            To {preview.data.to} · Subject: <strong>{preview.data.subject}</strong>
          </p>
          {/* An opaque origin (no allow-same-origin): nothing in the mail reaches the console's page or session. */}
          <iframe
            title="The announcement as mail"
            sandbox="allow-scripts"
            srcDoc={preview.data.html}
            style={{ width: '100%', minHeight: '24rem', border: '1px solid var(--border)' }}
          />
        </>
      ) : null}
    </section>
  );
}

function SendControls({ row, say }: { row: AnnouncementReport; say: (text: string) => void }) {
  const test = useSendAnnouncementTest();
  const send = useSendAnnouncement();
  const [confirming, setConfirming] = useState(false);
  const [problem, setProblem] = useState('');
  const fans = row.audienceSize ?? 0;
  return (
    <section aria-labelledby="announcement-send-title">
      <h4 id="announcement-send-title">Send</h4>
      <p className="console__hint">Save the draft first: the test and the sending use what is saved.</p>
      <div className="console__confirm-actions">
        <button
          type="button"
          className="button button--secondary"
          disabled={test.isPending}
          onClick={() =>
            test.mutate(row.id, {
              onSuccess: ({ to }) => {
                say(`Test sent to ${to}.`);
                toast.success(`Test sent to ${to}.`);
              },
              onError: (error) => setProblem(errorSentence(error, 'Could not send the test.')),
            })
          }
        >
          Send me a test
        </button>
        {confirming ? (
          <>
            <button
              type="button"
              className="button"
              disabled={send.isPending}
              onClick={() =>
                send.mutate(row.id, {
                  onSuccess: () => say('Sending started.'),
                  onError: (error) => {
                    setConfirming(false);
                    setProblem(errorSentence(error, 'Could not start sending.'));
                  },
                })
              }
            >
              Yes, send it to {fans} {fans === 1 ? 'fan' : 'fans'}
            </button>
            <button type="button" className="button button--secondary" onClick={() => setConfirming(false)}>
              Not yet
            </button>
          </>
        ) : (
          <button type="button" className="button" disabled={fans === 0} onClick={() => setConfirming(true)}>
            Send to {fans} {fans === 1 ? 'fan' : 'fans'}
          </button>
        )}
      </div>
      {problem ? (
        <p role="alert" className="console-discounts__problem">
          {problem}
        </p>
      ) : null}
    </section>
  );
}
