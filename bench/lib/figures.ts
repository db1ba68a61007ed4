/** One measured figure, next to its target when the issue sets one. */
export interface Figure {
  /** Stable key in latest.json, e.g. `http.list.ratio`. */
  key: string;
  label: string;
  value: number | string | null;
  unit: string;
  target?: { op: '>=' | '<=' | '<' | '='; value: number | string };
  /** null: no target, or the figure could not be measured. */
  met: boolean | null;
  note?: string;
}

export function figure(key: string, label: string, value: number | string | null, unit: string, target?: Figure['target'], note?: string): Figure {
  let met: boolean | null = null;
  if (target && typeof value === 'number' && Number.isFinite(value) && typeof target.value === 'number') {
    met = target.op === '>=' ? value >= target.value : target.op === '<=' ? value <= target.value : target.op === '<' ? value < target.value : value === target.value;
  } else if (target && value !== null && target.op === '=') {
    met = value === target.value;
  }
  return { key, label, value, unit, ...(target ? { target } : {}), met, ...(note ? { note } : {}) };
}

/** A figure that could not be measured: shown as missed, with the reason. */
export function failedFigure(key: string, label: string, unit: string, target: Figure['target'] | undefined, reason: string): Figure {
  return { key, label, value: null, unit, ...(target ? { target } : {}), met: target ? false : null, note: reason };
}

export function round(value: number, digits = 2): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

function formatValue(value: Figure['value'], unit: string): string {
  if (value === null) return 'n/a';
  if (typeof value === 'string') return value;
  // Small values keep a third decimal, so 0.052 is not shown as a target-meeting 0.05.
  const text = Math.abs(value) >= 1000 ? Math.round(value).toLocaleString('en-US') : String(round(value, Math.abs(value) < 1 ? 3 : 2));
  return unit ? `${text} ${unit}` : text;
}

export function formatTarget(figureRow: Figure): string {
  if (!figureRow.target) return '';
  const { op, value } = figureRow.target;
  return `${op} ${formatValue(value, figureRow.unit)}`;
}

export function formatRow(figureRow: Figure): [string, string, string, string] {
  const met = figureRow.met === null ? (figureRow.target ? 'n/a' : '') : figureRow.met ? 'yes' : 'NO';
  return [figureRow.label, formatValue(figureRow.value, figureRow.unit), formatTarget(figureRow), met];
}

/** The change against the landed run, by figure key (bench/lib/landed.ts formats it). */
export type ChangeColumn = Map<string, string>;

/** A plain-text table for the terminal; with `changes`, a column of each figure's change against the landed run. */
export function textTable(rows: Figure[], changes?: ChangeColumn): string {
  const header = ['figure', 'value', 'target', 'met?', ...(changes ? ['vs landed'] : [])];
  const cells = [header, ...rows.map((row) => [...formatRow(row), ...(changes ? [changes.get(row.key) ?? ''] : [])])];
  const widths = header.map((_, i) => Math.max(...cells.map((row) => row[i]!.length)));
  const line = (row: string[]) =>
    row
      .map((cell, i) => cell.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(line)].join('\n');
}

/** The same table in Markdown, for docs/performance.md. */
export function markdownTable(rows: Figure[], changes?: ChangeColumn): string {
  const escape = (text: string) => text.replaceAll('|', '\\|');
  const header = changes ? ['| figure | value | target | met? | vs landed |', '|---|---|---|---|---|'] : ['| figure | value | target | met? |', '|---|---|---|---|'];
  return [...header, ...rows.map((row) => `| ${[...formatRow(row), ...(changes ? [changes.get(row.key) ?? ''] : [])].map(escape).join(' | ')} |`)].join('\n');
}
