const MOVES = [
  { by: -1, word: 'up' },
  { by: 1, word: 'down' },
] as const;

/**
 * The Move up / Move down pair of a list an admin reorders by keyboard (the console's
 * products, the content editors' sections and covers); `name` ends each button's label.
 */
export function MoveButtons({ name, index, count, onMove }: { name: string; index: number; count: number; onMove: (by: -1 | 1) => void }) {
  return MOVES.map(({ by, word }) => (
    <button key={word} type="button" className="button button--secondary button--small" disabled={by < 0 ? index === 0 : index === count - 1} onClick={() => onMove(by)}>
      {/* Named "Move <name> up" by its text, the visible part included (axe: label-content-name-mismatch). */}
      Move <span className="visually-hidden">{name} </span>
      {word}
    </button>
  ));
}

/** A copy of `list` with the item at `index` moved `by` places. */
export function moved<T>(list: readonly T[], index: number, by: number): T[] {
  const next = [...list];
  const [item] = next.splice(index, 1);
  next.splice(index + by, 0, item!);
  return next;
}
