import { useId, useMemo, type FormEvent } from 'react';
import { errorSentence } from '../../../../lib/error-message.ts';
import { toast } from '../../../../lib/toast.ts';
import { LoadingRegion, SkeletonText } from '../../../../ui/skeleton.tsx';
import { useEditableHistory, useSaveContent } from '../../api/content-pages.ts';
import { SaveBar } from './save-bar.tsx';
import { useDraft } from './use-draft.ts';

interface EntryDraft {
  releasedOn: string;
  title: string;
  format: string;
  note: string;
}

/** History: the dated releases; the page sorts them by date and groups them by year. */
export function HistoryEditor() {
  const history = useEditableHistory();
  const server = useMemo(() => history.data?.map(({ releasedOn, title, format, note }): EntryDraft => ({ releasedOn, title, format, note })), [history.data]);
  const version = useMemo(() => (server ? JSON.stringify(server) : undefined), [server]);
  const { draft, setDraft, changedElsewhere, reset } = useDraft(server, version);
  const save = useSaveContent('saveHistory');
  const baseId = useId();

  if (history.isPending)
    return (
      <LoadingRegion label="Loading the history…">
        <SkeletonText lines={6} />
      </LoadingRegion>
    );
  if (history.isError || draft === undefined) return <p role="alert">{errorSentence(history.error, 'Could not load the history.')}</p>;

  const update = (index: number, change: Partial<EntryDraft>) => setDraft((current) => current.map((entry, i) => (i === index ? { ...entry, ...change } : entry)));

  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate(
      { entries: draft },
      {
        onSuccess: () => {
          reset();
          toast.success('The history is saved.');
        },
        onError: (error) => toast.error(errorSentence(error, 'Could not save the history.')),
      },
    );
  };

  return (
    <form className="content-editor__form" onSubmit={submit} aria-label="Edit History">
      <ol className="content-editor__list">
        {draft.map((entry, index) => (
          <li key={index} className="content-editor__item">
            <fieldset className="content-editor__entry">
              <legend>
                Entry {index + 1}
                {entry.title ? `: ${entry.title}` : ''}
              </legend>
              <label htmlFor={`${baseId}-date-${index}`}>Release date</label>
              <input
                id={`${baseId}-date-${index}`}
                type="date"
                required
                min="1900-01-01"
                max="2100-12-31"
                value={entry.releasedOn}
                onChange={(event) => update(index, { releasedOn: event.target.value })}
              />
              <label htmlFor={`${baseId}-title-${index}`}>Title</label>
              <input id={`${baseId}-title-${index}`} required maxLength={200} value={entry.title} onChange={(event) => update(index, { title: event.target.value })} />
              <label htmlFor={`${baseId}-format-${index}`}>Format</label>
              <input id={`${baseId}-format-${index}`} required maxLength={40} value={entry.format} onChange={(event) => update(index, { format: event.target.value })} />
              <label htmlFor={`${baseId}-note-${index}`}>Note</label>
              <textarea id={`${baseId}-note-${index}`} rows={2} maxLength={2000} value={entry.note} onChange={(event) => update(index, { note: event.target.value })} />
              <div className="content-editor__row-actions">
                <button
                  type="button"
                  className="button button--danger button--small"
                  onClick={() => setDraft((current) => current.filter((_, i) => i !== index))}
                  aria-label={`Remove entry ${index + 1}`}
                >
                  Remove
                </button>
              </div>
            </fieldset>
          </li>
        ))}
      </ol>
      <button
        type="button"
        className="button button--secondary"
        disabled={draft.length >= 100}
        onClick={() => setDraft((current) => [...current, { releasedOn: new Date().toISOString().slice(0, 10), title: '', format: '', note: '' }])}
      >
        Add entry
      </button>
      <SaveBar label="Save history" pending={save.isPending} changedElsewhere={changedElsewhere} />
    </form>
  );
}
