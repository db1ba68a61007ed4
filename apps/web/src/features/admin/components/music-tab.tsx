import { useQuery } from '@tanstack/react-query';
import { useId, useRef, useState, type FormEvent } from 'react';
import { formatUsd } from '@storefront/domain/catalog.ts';
import { codesCsv, formatCode, formatDuration, RELEASE_KINDS, type ReleaseKind } from '@storefront/domain/digital.ts';
import type { UploadTask } from '@storefront/sdk/storage/upload-task.ts';
import { errorSentence } from '../../../lib/error-message.ts';
import { paths } from '../../../lib/paths.ts';
import { Link } from '../../../lib/router.tsx';
import { toast } from '../../../lib/toast.ts';
import { isImageFile, uploadErrorMessage, uploadMaster, uploadReleaseArtwork } from '../../../lib/uploads.ts';
import { UPLOAD_MESSAGES } from '@storefront/domain/storage.ts';
import { ErrorState } from '../../../ui/error-state.tsx';
import { ProgressBar } from '../../../ui/progress-bar.tsx';
import { LoadingRegion, SkeletonText } from '../../../ui/skeleton.tsx';
import {
  codesQueryOptions,
  useConsoleReleases,
  useCreateCodes,
  useRetryEncoding,
  useSaveRelease,
  useSetProductRelease,
  useSetTrackMaster,
  type ConsoleRelease,
} from '../api/music.ts';
import { ReleaseArtwork } from './release-artwork.tsx';
import { ReleaseEditForm } from './release-edit-form.tsx';
import './console.css';

const cents = (dollars: string) => Math.round(Number(dollars) * 100);
const STATUS: Record<ConsoleRelease['tracks'][number]['encodeStatus'], string> = {
  none: 'No master yet',
  queued: 'Queued',
  encoding: 'Encoding',
  ready: 'Ready',
  failed: 'Failed',
};

/** The console's Music tab (issue 28): releases, their masters and encoding, prices, download codes. */
export function MusicTab() {
  const releases = useConsoleReleases();
  return (
    <section aria-labelledby="music-tab-heading">
      <h2 id="music-tab-heading">Music</h2>
      <NewReleaseForm />
      {releases.isPending ? (
        <LoadingRegion label="Loading the releases…">
          <SkeletonText lines={3} />
        </LoadingRegion>
      ) : releases.isError ? (
        <ErrorState title="The releases could not be loaded." onRetry={() => void releases.refetch()} />
      ) : releases.data.releases.length === 0 ? (
        <p>No releases yet.</p>
      ) : (
        releases.data.releases.map((release) => <ReleaseCard key={release.id} release={release} />)
      )}
    </section>
  );
}

function NewReleaseForm() {
  const id = useId();
  const save = useSaveRelease();
  const [kind, setKind] = useState<ReleaseKind>('album');
  const [fields, setFields] = useState({
    title: '',
    artist: '',
    releaseDate: new Date().toISOString().slice(0, 10),
    price: '8.00',
    trackPrice: '',
    tracks: '',
    upc: '',
    credits: '',
    artwork: '',
  });
  const [published, setPublished] = useState(true);
  const set = (name: keyof typeof fields) => (event: { currentTarget: { value: string } }) => setFields({ ...fields, [name]: event.currentTarget.value });
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const titles = fields.tracks
      .split('\n')
      .map((line) => line.trim())
      .filter(Boolean);
    try {
      await save.mutateAsync({
        kind,
        title: fields.title,
        artist: fields.artist,
        releaseDate: fields.releaseDate,
        priceCents: cents(fields.price),
        published,
        ...(fields.upc ? { upc: fields.upc } : {}),
        ...(fields.credits ? { credits: fields.credits } : {}),
        ...(fields.artwork ? { artwork: fields.artwork } : {}),
        tracks: titles.map((title) => ({ title, ...(fields.trackPrice ? { priceCents: cents(fields.trackPrice) } : {}) })),
      });
      toast.success(`${fields.title} saved.`);
      setFields({ ...fields, title: '', tracks: '' });
    } catch (error) {
      toast.error(errorSentence(error, 'The release could not be saved.'));
    }
  };
  const field = (name: keyof typeof fields, label: string, props: Record<string, unknown> = {}) => (
    <p className="music-form__field">
      <label htmlFor={`${id}-${name}`}>{label}</label>
      <input id={`${id}-${name}`} className="field-control" value={fields[name]} onChange={set(name)} {...props} />
    </p>
  );
  // The artwork through the shop's upload, as everywhere else (issue 39), not an address to type.
  const [artworkPercent, setArtworkPercent] = useState<number | null>(null);
  const uploadArtwork = async (file: File) => {
    if (!isImageFile(file)) return toast.error(UPLOAD_MESSAGES.notAnImage);
    setArtworkPercent(0);
    try {
      const url = await uploadReleaseArtwork(file, setArtworkPercent).url;
      setFields((current) => ({ ...current, artwork: url }));
    } catch (error) {
      toast.error(uploadErrorMessage(error, errorSentence(error, 'The artwork could not be uploaded.')));
    } finally {
      setArtworkPercent(null);
    }
  };
  return (
    <form className="music-form" onSubmit={(event) => void submit(event)} aria-label="New release">
      <h3>New release</h3>
      <p className="music-form__field">
        <label htmlFor={`${id}-kind`}>Kind</label>
        <select id={`${id}-kind`} className="field-control" value={kind} onChange={(event) => setKind(event.currentTarget.value as ReleaseKind)}>
          {RELEASE_KINDS.map((value) => (
            <option key={value} value={value}>
              {value.toUpperCase()}
            </option>
          ))}
        </select>
      </p>
      {field('title', 'Title', { required: true })}
      {field('artist', 'Artist', { required: true })}
      {field('releaseDate', 'Release date', { type: 'date', required: true })}
      {field('price', 'Price of the release (USD)', { inputMode: 'decimal', required: true })}
      {field('trackPrice', 'Price of each track (USD, empty: album only)', { inputMode: 'decimal' })}
      <div className="music-form__field music-release__artwork">
        {fields.artwork ? <img src={fields.artwork} alt="Artwork of the new release" width={96} height={96} /> : null}
        {artworkPercent !== null ? (
          <ProgressBar value={artworkPercent} label="Uploading the artwork" />
        ) : (
          <p>
            <label htmlFor={`${id}-artwork`}>{fields.artwork ? 'Replace artwork' : 'Upload artwork'} (an image)</label>{' '}
            <input
              id={`${id}-artwork`}
              type="file"
              accept="image/*"
              onChange={(event) => {
                const file = event.currentTarget.files?.[0];
                event.currentTarget.value = '';
                if (file) void uploadArtwork(file);
              }}
            />
          </p>
        )}
      </div>
      {field('upc', 'UPC')}
      {field('credits', 'Credits')}
      <p className="music-form__field">
        <label htmlFor={`${id}-tracks`}>Tracks, one title a line</label>
        <textarea id={`${id}-tracks`} className="field-control" value={fields.tracks} onChange={set('tracks')} rows={4} required />
      </p>
      <p>
        <label>
          <input type="checkbox" checked={published} onChange={(event) => setPublished(event.currentTarget.checked)} /> Published
        </label>
      </p>
      <button type="submit" className="button" disabled={save.isPending || artworkPercent !== null}>
        Save release
      </button>
    </form>
  );
}

function ReleaseCard({ release }: { release: ConsoleRelease }) {
  const [editing, setEditing] = useState(false);
  const editButton = useRef<HTMLButtonElement>(null);
  const formId = useId();
  return (
    <article className="music-release" aria-label={release.title}>
      <h3>
        {release.title} <small>{release.artist}</small>
      </h3>
      <p>
        {release.kind.toUpperCase()} · {release.releaseDate} · {formatUsd(release.priceCents)} ·{' '}
        {release.published ? <Link to={paths.music(release.id)}>Release page</Link> : 'Draft'}
      </p>
      <ReleaseArtwork release={release} />
      <p>
        <button
          ref={editButton}
          type="button"
          className="button button--secondary"
          aria-expanded={editing}
          aria-controls={editing ? formId : undefined}
          onClick={() => setEditing(!editing)}
        >
          {editing ? 'Close the editor' : 'Edit release and tracks'}
        </button>
      </p>
      {editing ? (
        <div id={formId}>
          <ReleaseEditForm
            release={release}
            onDone={() => {
              setEditing(false);
              editButton.current?.focus();
            }}
          />
        </div>
      ) : null}
      <ol className="music-release__tracks">
        {release.tracks.map((track) => (
          <TrackRow key={track.id} releaseId={release.id} track={track} />
        ))}
      </ol>
      <Codes release={release} />
      <BundleForm releaseId={release.id} />
    </article>
  );
}

function TrackRow({ releaseId, track }: { releaseId: number; track: ConsoleRelease['tracks'][number] }) {
  const inputId = useId();
  const setMaster = useSetTrackMaster();
  const retry = useRetryEncoding();
  const [upload, setUpload] = useState<{ percent: number; paused: boolean } | null>(null);
  const task = useRef<UploadTask | null>(null);
  const start = async (file: File) => {
    const started = uploadMaster(file, releaseId, track.id, (percent) => setUpload((current) => ({ percent, paused: current?.paused ?? false })));
    task.current = started.task;
    setUpload({ percent: 0, paused: false });
    try {
      const path = await started.path;
      await setMaster.mutateAsync({ trackId: track.id, path });
      toast.success(`Master of ${track.title} uploaded: encoding.`);
    } catch (error) {
      toast.error(uploadErrorMessage(error, errorSentence(error, 'The master could not be uploaded.')));
    } finally {
      setUpload(null);
      task.current = null;
    }
  };
  const pauseOrResume = () => {
    if (!task.current || !upload) return;
    if (upload.paused) task.current.resume();
    else task.current.pause();
    setUpload({ ...upload, paused: !upload.paused });
  };
  const encoding = track.encodeStatus === 'encoding' || track.encodeStatus === 'queued';
  return (
    <li className="music-release__track">
      {/* Numbered here, not also by the list (issue 39: not "1. 1."); each part spaced by the row. */}
      <span className="music-release__track-title">
        {track.position}. {track.title}
        {track.shownDurationSeconds !== null || track.durationSeconds !== null ? ` (${formatDuration(track.shownDurationSeconds ?? track.durationSeconds ?? 0)})` : ''}
      </span>{' '}
      <span className="music-release__track-status" aria-live="polite">
        {STATUS[track.encodeStatus]}
        {encoding ? ` ${track.encodeDone} of ${track.encodeTotal}` : ''}
        {track.encodeStatus === 'failed' && track.encodeError ? `: ${track.encodeError}` : ''}
      </span>{' '}
      {encoding ? <ProgressBar value={(track.encodeDone / track.encodeTotal) * 100} label={`Encoding ${track.title}`} /> : null}
      {track.encodeStatus === 'failed' ? (
        <button
          type="button"
          className="button button--secondary"
          onClick={() => void retry.mutateAsync({ trackId: track.id }).catch((error: unknown) => toast.error(errorSentence(error)))}
        >
          Retry encoding
        </button>
      ) : null}
      {upload ? (
        <>
          <ProgressBar value={upload.percent} label={`Uploading the master of ${track.title}`} />
          <button type="button" className="button button--secondary" onClick={pauseOrResume}>
            {upload.paused ? 'Resume' : 'Pause'}
          </button>
        </>
      ) : (
        <>
          <label htmlFor={inputId}>{track.masterPath ? 'Replace master' : 'Upload master'} (WAV, AIFF, FLAC)</label>
          <input
            id={inputId}
            type="file"
            accept=".wav,.aif,.aiff,.flac,audio/wav,audio/aiff,audio/flac"
            onChange={(event) => {
              const file = event.currentTarget.files?.[0];
              event.currentTarget.value = '';
              if (file) void start(file);
            }}
          />
        </>
      )}
    </li>
  );
}

function Codes({ release }: { release: ConsoleRelease }) {
  const inputId = useId();
  const [count, setCount] = useState('10');
  const [open, setOpen] = useState(false);
  const create = useCreateCodes();
  const codes = useQuery({ ...codesQueryOptions(release.id), enabled: open });
  const csv = () => {
    if (!codes.data) return;
    const url = URL.createObjectURL(new Blob([codesCsv(release.title, codes.data.codes)], { type: 'text/csv' }));
    const link = document.createElement('a');
    link.href = url;
    link.download = `codes-${release.id}.csv`;
    link.click();
    URL.revokeObjectURL(url);
  };
  return (
    <div className="music-release__codes">
      <p>
        Download codes: {release.codes.total} ({release.codes.redeemed} redeemed){' '}
        <button type="button" className="button button--secondary" onClick={() => setOpen(!open)} aria-expanded={open}>
          {open ? 'Hide codes' : 'Show codes'}
        </button>
      </p>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          create
            .mutateAsync({ releaseId: release.id, count: Number(count) })
            .then(({ codes: made }) => {
              toast.success(`${made.length} codes generated.`);
              setOpen(true);
            })
            .catch((error: unknown) => toast.error(errorSentence(error)));
        }}
      >
        <label htmlFor={inputId}>Number of codes</label>{' '}
        <input id={inputId} type="number" min={1} max={5000} value={count} onChange={(event) => setCount(event.currentTarget.value)} />{' '}
        <button type="submit" className="button" disabled={create.isPending}>
          Generate codes
        </button>
      </form>
      {open && codes.data ? (
        <>
          <button type="button" className="button button--secondary" onClick={csv}>
            Export CSV
          </button>
          <table className="music-release__code-table">
            <caption>Codes of {release.title}</caption>
            <thead>
              <tr>
                <th scope="col">Code</th>
                <th scope="col">Redeemed by</th>
                <th scope="col">Redeemed at</th>
              </tr>
            </thead>
            <tbody>
              {codes.data.codes.map((code) => (
                <tr key={code.code}>
                  <td>{formatCode(code.code)}</td>
                  <td>{code.redeemedBy ?? '—'}</td>
                  <td>{code.redeemedAt ? new Date(code.redeemedAt).toLocaleString() : '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      ) : null}
    </div>
  );
}

/** "LP + instant download": a physical product that carries this release. */
function BundleForm({ releaseId }: { releaseId: number }) {
  const inputId = useId();
  const [productId, setProductId] = useState('');
  const link = useSetProductRelease();
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        link
          .mutateAsync({ productId: productId.trim(), releaseId })
          .then(() => toast.success('The product now carries this release.'))
          .catch((error: unknown) => toast.error(errorSentence(error)));
      }}
    >
      <label htmlFor={inputId}>Product that carries this release (its id)</label>{' '}
      <input id={inputId} value={productId} onChange={(event) => setProductId(event.currentTarget.value)} required />{' '}
      <button type="submit" className="button button--secondary" disabled={link.isPending}>
        Link product
      </button>
    </form>
  );
}
