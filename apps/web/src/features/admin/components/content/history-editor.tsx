import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { useEditableHistory } from '../../api/content-pages.ts';
import { Modal } from '../../../../ui/modal.tsx';
import { LoadState } from '../load-state.tsx';
import { useSaveDraft } from './use-save-draft.ts';

interface EntryDraft {
  releasedOn: string;
  title: string;
  format: string;
  note: string;
}

/** Which entry is open: one of the list (its index) or a new one; null: none. */
type Open = number | 'new' | null;

/**
 * History: the dated releases, edited one entry at a time (issue 29 item 8). The list shows each
 * entry in a line with Edit and Remove; Edit opens that entry's form in its place, and its Save
 * sends the timeline with only that entry changed (the others as the server has them now). The
 * page sorts the entries by date and groups them by year.
 */
export function HistoryEditor() {
  const history = useEditableHistory();
  const [open, setOpen] = useState<Open>(null);
  const [removing, setRemoving] = useState<number | null>(null);
  const editButtons = useRef(new Map<number | 'new', HTMLButtonElement | null>());
  const returnFocus = useRef<number | 'new' | null>(null);
  const close = () => {
    returnFocus.current = open;
    setOpen(null);
  };
  const { save, pending } = useSaveDraft('saveHistory', close, { saved: 'The history is saved.', failed: 'Could not save the history.' });

  // Back to the button that opened the form once it closes.
  useEffect(() => {
    if (open !== null || returnFocus.current === null) return;
    editButtons.current.get(returnFocus.current)?.focus();
    returnFocus.current = null;
  }, [open]);

  if (history.isPending || history.isError) return <LoadState query={history} label="Loading the history…" lines={6} failed="Could not load the history." />;

  const entries = history.data.map(({ releasedOn, title, format, note }): EntryDraft => ({ releasedOn, title, format, note }));
  const saveEntry = (index: number | 'new', entry: EntryDraft) =>
    save({ entries: index === 'new' ? [...entries, entry] : entries.map((current, i) => (i === index ? entry : current)) });
  const confirmRemove = () => {
    if (removing === null) return;
    const index = removing;
    setRemoving(null);
    save({ entries: entries.filter((_, i) => i !== index) });
  };

  return (
    <div className="content-editor__form history-editor" aria-label="Edit History" role="group">
      <ol className="content-editor__list history-editor__list">
        {entries.map((entry, index) => (
          <li key={`${index}-${entry.releasedOn}-${entry.title}`} className="content-editor__item history-editor__item" data-testid="history-entry">
            {open === index ? (
              <EntryForm initial={entry} legend={`Edit entry ${index + 1}`} pending={pending} onSave={(next) => saveEntry(index, next)} onCancel={close} />
            ) : (
              <div className="history-editor__row">
                <span className="history-editor__summary">
                  <time dateTime={entry.releasedOn}>{entry.releasedOn}</time> · <strong>{entry.title}</strong> · {entry.format}
                </span>
                <span className="history-editor__actions">
                  <button
                    ref={(element) => {
                      editButtons.current.set(index, element);
                    }}
                    type="button"
                    className="button button--secondary button--small"
                    disabled={open !== null || pending}
                    onClick={() => setOpen(index)}
                  >
                    Edit <span className="visually-hidden">{entry.title}</span>
                  </button>
                  <button type="button" className="button button--danger button--small" disabled={open !== null || pending} onClick={() => setRemoving(index)}>
                    Remove <span className="visually-hidden">{entry.title}</span>
                  </button>
                </span>
              </div>
            )}
          </li>
        ))}
      </ol>
      {open === 'new' ? (
        <EntryForm
          initial={{ releasedOn: new Date().toISOString().slice(0, 10), title: '', format: '', note: '' }}
          legend="New entry"
          pending={pending}
          onSave={(next) => saveEntry('new', next)}
          onCancel={close}
        />
      ) : (
        <button
          ref={(element) => {
            editButtons.current.set('new', element);
          }}
          type="button"
          className="button button--secondary"
          disabled={entries.length >= 100 || open !== null || pending}
          onClick={() => setOpen('new')}
        >
          Add entry
        </button>
      )}
      <Modal open={removing !== null} onClose={() => setRemoving(null)} title="Remove this entry?">
        {removing !== null ? (
          <p>
            {entries[removing]?.releasedOn} · {entries[removing]?.title} leaves the History page.
          </p>
        ) : null}
        <div className="content-editor__row-actions">
          <button type="button" className="button button--danger" onClick={confirmRemove}>
            Yes, remove
          </button>
          <button type="button" className="button button--secondary" onClick={() => setRemoving(null)}>
            Cancel
          </button>
        </div>
      </Modal>
    </div>
  );
}

/** One entry's fields, with Save entry and Cancel; the first field takes focus when it opens. */
function EntryForm({
  initial,
  legend,
  pending,
  onSave,
  onCancel,
}: {
  initial: EntryDraft;
  legend: string;
  pending: boolean;
  onSave: (entry: EntryDraft) => void;
  onCancel: () => void;
}) {
  const [entry, setEntry] = useState(initial);
  const id = useId();
  const first = useRef<HTMLInputElement>(null);
  useEffect(() => first.current?.focus(), []);
  const update = (change: Partial<EntryDraft>) => setEntry((current) => ({ ...current, ...change }));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSave({ ...entry, title: entry.title.trim(), format: entry.format.trim(), note: entry.note.trim() });
  };
  return (
    <form className="history-editor__form" onSubmit={submit} aria-label={legend}>
      <fieldset className="field-group content-editor__entry">
        <legend>{legend}</legend>
        <label htmlFor={`${id}-date`}>Release date</label>
        <input
          ref={first}
          id={`${id}-date`}
          type="date"
          required
          min="1900-01-01"
          max="2100-12-31"
          value={entry.releasedOn}
          onChange={(event) => update({ releasedOn: event.target.value })}
        />
        <label htmlFor={`${id}-title`}>Title</label>
        <input id={`${id}-title`} required maxLength={200} value={entry.title} onChange={(event) => update({ title: event.target.value })} />
        <label htmlFor={`${id}-format`}>Format</label>
        <input id={`${id}-format`} required maxLength={40} value={entry.format} onChange={(event) => update({ format: event.target.value })} />
        <label htmlFor={`${id}-note`}>Note</label>
        <textarea id={`${id}-note`} rows={2} maxLength={2000} value={entry.note} onChange={(event) => update({ note: event.target.value })} />
        <div className="content-editor__row-actions">
          <button type="submit" className="button button--small" disabled={pending}>
            {pending ? 'Saving…' : 'Save entry'}
          </button>
          <button type="button" className="button button--secondary button--small" onClick={onCancel}>
            Cancel
          </button>
        </div>
      </fieldset>
    </form>
  );
}
