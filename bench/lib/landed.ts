import type { Figure } from './figures.ts';

// The regression guard (issue 38 part 4): `bench/results/landed.json`, committed, keeps each
// figure of the last landed run (`npm run bench -- --land` writes it); every run prints the
// change of each numeric figure against it and flags, in its own summary, each guarded ratio
// that fell by more than REGRESSION_THRESHOLD. Quick and full runs measure different amounts
// (a quick scale section has 50,000 orders, not 1,000,000), so each mode is compared with the
// last landed run of the same mode only.

/** A guarded ratio that falls by more than this fraction of its landed value is a regression. */
export const REGRESSION_THRESHOLD = 0.1;

export interface LandedFigure {
  value: number;
  unit: string;
  label: string;
  /** When the run that measured it finished, and the commit it ran on. */
  finishedAt: string;
  commit: string | null;
}

export type LandedMode = Record<string, LandedFigure>;

export interface LandedFile {
  full: LandedMode;
  quick: LandedMode;
}

export interface FigureChange {
  key: string;
  previous: number;
  current: number;
  /** (current - previous) / previous; null when the landed value is 0. */
  change: number | null;
  /** A guarded ratio that fell by more than the threshold. */
  regression: boolean;
  guarded: boolean;
  landed: Pick<LandedFigure, 'finishedAt' | 'commit'>;
}

export const emptyLanded = (): LandedFile => ({ full: {}, quick: {} });

/**
 * The figures the guard judges: the same-run ratios (shop / raw node:http, shop / bare
 * Fastify, hot-row / bare SQL, download throughput), higher is better. They are the figures
 * that carry over between runs on a shared machine; req/s and p99s are shown with their
 * change but not flagged. A ratio of the reference servers alone (bare Fastify / raw
 * node:http) measures no code of the shop and is left out.
 */
export function isGuarded(figure: Pick<Figure, 'key' | 'unit'>): boolean {
  return /ratio$/i.test(figure.key) && (figure.unit === '' || figure.unit === 'x') && !/\.fastifyRatio$/.test(figure.key);
}

/** Reads a landed.json text; anything unreadable is no landed run (the first run). */
export function parseLanded(text: string | null): LandedFile {
  if (!text) return emptyLanded();
  const parsed = JSON.parse(text) as Partial<LandedFile>;
  return { full: parsed.full ?? {}, quick: parsed.quick ?? {} };
}

/** Each numeric figure of this run against the landed figure of the same key, in the same mode. */
export function compareWithLanded(figures: Figure[], landed: LandedMode, threshold = REGRESSION_THRESHOLD): FigureChange[] {
  const changes: FigureChange[] = [];
  for (const figure of figures) {
    const previous = landed[figure.key];
    if (!previous || typeof figure.value !== 'number' || !Number.isFinite(figure.value) || previous.unit !== figure.unit) continue;
    const change = previous.value === 0 ? null : (figure.value - previous.value) / Math.abs(previous.value);
    const guarded = isGuarded(figure);
    changes.push({
      key: figure.key,
      previous: previous.value,
      current: figure.value,
      change,
      guarded,
      regression: guarded && change !== null && change < -threshold,
      landed: { finishedAt: previous.finishedAt, commit: previous.commit },
    });
  }
  return changes;
}

/** "+4.2% (was 0.67)", for the table's column next to each figure. */
export function formatChange(change: FigureChange | undefined): string {
  if (!change) return '';
  const percent = change.change === null ? 'n/a' : `${change.change >= 0 ? '+' : ''}${(change.change * 100).toFixed(1)}%`;
  return `${percent} (was ${change.previous})${change.regression ? ' REGRESSION' : ''}`;
}

/** The summary lines: one per regression, or a line saying there is none (or nothing landed to compare with). */
export function regressionSummary(figures: Figure[], changes: FigureChange[], threshold = REGRESSION_THRESHOLD): string[] {
  const guarded = changes.filter((change) => change.guarded);
  if (guarded.length === 0) return ['regression guard: no landed figure of this mode to compare with (npm run bench -- --land records one)'];
  const regressions = guarded.filter((change) => change.regression);
  if (regressions.length === 0) {
    return [`regression guard: none of ${guarded.length} ratios fell by more than ${threshold * 100}% against the landed run`];
  }
  const label = (key: string) => figures.find((figure) => figure.key === key)?.label ?? key;
  return [
    `regression guard: ${regressions.length} of ${guarded.length} ratios fell by more than ${threshold * 100}% against the landed run:`,
    ...regressions.map(
      (change) =>
        `  REGRESSION ${label(change.key)}: ${change.current} (was ${change.previous} at ${change.landed.commit ?? 'an unknown commit'}, ${change.landed.finishedAt}; ${formatChange(change).split(' ')[0]})`,
    ),
  ];
}

/**
 * Records this run's numeric figures as the landed ones of its mode; figures this run did
 * not measure (sections left out, failed figures) keep their earlier landed value.
 */
export function landFigures(landed: LandedFile, figures: Figure[], mode: keyof LandedFile, run: { finishedAt: string; commit: string | null }): LandedFile {
  const next: LandedMode = { ...landed[mode] };
  for (const figure of figures) {
    if (typeof figure.value !== 'number' || !Number.isFinite(figure.value) || figure.key === 'bench.seconds') continue;
    next[figure.key] = { value: figure.value, unit: figure.unit, label: figure.label, ...run };
  }
  const sorted = Object.fromEntries(Object.entries(next).sort(([a], [b]) => a.localeCompare(b)));
  return { ...landed, [mode]: sorted };
}
