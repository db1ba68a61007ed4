import { MoveButtons } from '../../../../ui/move-buttons.tsx';

/** The buttons under one item of a content editor's list: Move up / Move down when it can move, and Remove. */
export function RowActions({ name, index, count, onMove, onRemove }: { name: string; index: number; count: number; onMove?: (by: -1 | 1) => void; onRemove: () => void }) {
  return (
    <div className="content-editor__row-actions">
      {onMove ? <MoveButtons name={name} index={index} count={count} onMove={onMove} /> : null}
      <button type="button" className="button button--danger button--small" onClick={onRemove} aria-label={`Remove ${name}`}>
        Remove
      </button>
    </div>
  );
}
