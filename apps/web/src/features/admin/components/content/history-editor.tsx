import { useId, useMemo, type FormEvent } from 'react';
import { useEditableHistory } from '../../api/content-pages.ts';
import { LoadState } from '../load-state.tsx';
import { RowActions } from './row-actions.tsx';
import { SaveBar } from './save-bar.tsx';
import { useDraft } from './use-draft.ts';
import { useSaveDraft } from './use-save-draft.ts';

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
  const { save, pending } = useSaveDraft('saveHistory', reset, { saved: 'The history is saved.', failed: 'Could not save the history.' });
  const baseId = useId();

  if (history.isPending || history.isError || draft === undefined) return <LoadState query={history} label="Loading the history…" lines={6} failed="Could not load the history." />;

  const update = (index: number, change: Partial<EntryDraft>) => setDraft((current) => current.map((entry, i) => (i === index ? { ...entry, ...change } : entry)));

  const submit = (event: FormEvent) => {
    event.preventDefault();
    save({ entries: draft });
  };

  return (
    <form className="content-editor__form" onSubmit={submit} aria-label="Edit History">
      <ol className="content-editor__list">
        {draft.map((entry, index) => (
          <li key={index} className="content-editor__item">
            <fieldset className="field-group content-editor__entry">
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
              <RowActions name={`entry ${index + 1}`} index={index} count={draft.length} onRemove={() => setDraft((current) => current.filter((_, i) => i !== index))} />
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
      <SaveBar label="Save history" pending={pending} changedElsewhere={changedElsewhere} />
    </form>
  );
}
