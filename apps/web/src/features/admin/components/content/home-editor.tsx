import { useId, useMemo, useState, type ChangeEvent, type FormEvent } from 'react';
import { toast } from '../../../../lib/toast.ts';
import { isImageFile, uploadContentImage, uploadErrorMessage } from '../../../../lib/uploads.ts';
import { ProgressBar } from '../../../../ui/progress-bar.tsx';
import { moved } from '../../../../ui/move-buttons.tsx';
import { useEditablePage } from '../../api/content-pages.ts';
import { LoadState } from '../load-state.tsx';
import { RowActions } from './row-actions.tsx';
import { SaveBar } from './save-bar.tsx';
import { useDraft } from './use-draft.ts';
import { useSaveDraft } from './use-save-draft.ts';

interface CoverDraft {
  /** Keeps a cover's inputs and upload together while covers move. */
  key: string;
  title: string;
  artist: string;
  year: string;
  image: string;
  url: string;
}

interface HomeDraft {
  intro: string;
  copyright: string;
  covers: CoverDraft[];
}

let nextKey = 0;
const newKey = () => `cover-${(nextKey += 1)}`;
const text = (value: unknown) => (typeof value === 'string' ? value : '');

function readHome(body: unknown): HomeDraft {
  const data = (body ?? {}) as { intro?: unknown; copyright?: unknown; covers?: unknown };
  const covers = Array.isArray(data.covers) ? (data.covers as Record<string, unknown>[]) : [];
  return {
    intro: text(data.intro),
    copyright: text(data.copyright),
    covers: covers.map((cover) => ({
      key: newKey(),
      title: text(cover?.title),
      artist: text(cover?.artist),
      year: typeof cover?.year === 'number' ? String(cover.year) : '',
      image: text(cover?.image),
      url: text(cover?.url),
    })),
  };
}

/** Home: the introduction, the gallery of covers (image, title, artist, year, link) and the footer's copyright. */
export function HomeEditor() {
  const page = useEditablePage('home');
  const server = useMemo(() => (page.data === undefined ? undefined : readHome(page.data?.body)), [page.data]);
  const { draft, setDraft, changedElsewhere, reset } = useDraft(server, page.data?.updatedAt);
  const { save, pending } = useSaveDraft('saveHomePage', reset, { saved: 'The home page is saved.', failed: 'Could not save the home page.' });
  const [uploads, setUploads] = useState<Record<string, number>>({});
  const baseId = useId();

  if (page.isPending || page.isError || draft === undefined) return <LoadState query={page} label="Loading the home page…" lines={6} failed="Could not load the home page." />;

  const updateCover = (key: string, change: Partial<CoverDraft>) =>
    setDraft((current) => ({ ...current, covers: current.covers.map((cover) => (cover.key === key ? { ...cover, ...change } : cover)) }));

  /** Uploads through the storage service (checked as an image, WebP variants made); the cover keeps its URL. */
  const upload = (key: string, event: ChangeEvent<HTMLInputElement>, isNew: boolean) => {
    const file = event.target.files?.[0];
    event.target.value = '';
    if (!file) return;
    if (!isImageFile(file)) {
      toast.error('Please choose an image file.');
      return;
    }
    if (isNew) setDraft((current) => ({ ...current, covers: [...current.covers, { key, title: '', artist: '', year: '', image: '', url: '' }] }));
    setUploads((current) => ({ ...current, [key]: 0 }));
    const { url } = uploadContentImage(file, (percent) => setUploads((current) => ({ ...current, [key]: percent })));
    url
      .then(
        (image) => updateCover(key, { image }),
        (error: unknown) => toast.error(uploadErrorMessage(error, 'The image could not be uploaded.')),
      )
      .finally(() =>
        setUploads((current) => {
          const { [key]: _done, ...rest } = current;
          return rest;
        }),
      );
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (Object.keys(uploads).length > 0) {
      toast.error('Please wait until the images are uploaded.');
      return;
    }
    const covers = draft.covers.map((cover) => ({
      title: cover.title,
      artist: cover.artist,
      year: cover.year.trim() ? Number(cover.year) : null,
      image: cover.image,
      url: cover.url,
    }));
    save({ intro: draft.intro, copyright: draft.copyright, covers });
  };

  return (
    <form className="content-editor__form" onSubmit={submit} aria-label="Edit Home">
      <label htmlFor={`${baseId}-intro`}>Introduction</label>
      <textarea id={`${baseId}-intro`} rows={3} maxLength={1000} value={draft.intro} onChange={(event) => setDraft((current) => ({ ...current, intro: event.target.value }))} />
      <label htmlFor={`${baseId}-copyright`}>Copyright line (footer)</label>
      <input id={`${baseId}-copyright`} maxLength={200} value={draft.copyright} onChange={(event) => setDraft((current) => ({ ...current, copyright: event.target.value }))} />
      <h3 className="content-editor__subtitle">Covers</h3>
      <ol className="content-editor__list content-editor__covers">
        {draft.covers.map((cover, index) => {
          const id = (field: string) => `${baseId}-${cover.key}-${field}`;
          const progress = uploads[cover.key];
          return (
            <li key={cover.key} className="content-editor__item content-editor__cover">
              <fieldset className="field-group">
                <legend>
                  Cover {index + 1}
                  {cover.title ? `: ${cover.title}` : ''}
                </legend>
                {cover.image ? <img className="content-editor__preview" src={cover.image} alt="" width={96} height={96} /> : null}
                {progress !== undefined ? <ProgressBar value={progress} label={`Uploading the image of cover ${index + 1}`} /> : null}
                <label htmlFor={id('image')}>{cover.image ? 'Replace image' : 'Image'}</label>
                <input id={id('image')} type="file" accept="image/*" onChange={(event) => upload(cover.key, event, false)} />
                <label htmlFor={id('title')}>Title</label>
                <input id={id('title')} required maxLength={120} value={cover.title} onChange={(event) => updateCover(cover.key, { title: event.target.value })} />
                <label htmlFor={id('artist')}>Artist</label>
                <input id={id('artist')} maxLength={120} value={cover.artist} onChange={(event) => updateCover(cover.key, { artist: event.target.value })} />
                <label htmlFor={id('year')}>Year</label>
                <input id={id('year')} type="number" min={1900} max={2100} value={cover.year} onChange={(event) => updateCover(cover.key, { year: event.target.value })} />
                <label htmlFor={id('url')}>Link (http://, https:// or mailto:)</label>
                <input id={id('url')} type="url" required maxLength={500} value={cover.url} onChange={(event) => updateCover(cover.key, { url: event.target.value })} />
                <RowActions
                  name={`cover ${index + 1}`}
                  index={index}
                  count={draft.covers.length}
                  onMove={(by) => setDraft((current) => ({ ...current, covers: moved(current.covers, index, by) }))}
                  onRemove={() => setDraft((current) => ({ ...current, covers: current.covers.filter((c) => c.key !== cover.key) }))}
                />
              </fieldset>
            </li>
          );
        })}
      </ol>
      {draft.covers.length < 24 ? (
        <div className="content-editor__add">
          <label htmlFor={`${baseId}-new-cover`}>Add a cover (choose its image)</label>
          <input id={`${baseId}-new-cover`} type="file" accept="image/*" onChange={(event) => upload(newKey(), event, true)} />
        </div>
      ) : null}
      <SaveBar label="Save home page" pending={pending} changedElsewhere={changedElsewhere} />
    </form>
  );
}
