/** The editors' save button, with a note when another admin changed the page meanwhile. */
export function SaveBar({ label, pending, changedElsewhere }: { label: string; pending: boolean; changedElsewhere: boolean }) {
  return (
    <div className="content-editor__save">
      {changedElsewhere ? (
        <p role="status" className="console__hint">
          Another admin changed this page while you were editing: saving replaces their version.
        </p>
      ) : null}
      <button type="submit" className="button" disabled={pending}>
        {pending ? 'Saving…' : label}
      </button>
    </div>
  );
}
