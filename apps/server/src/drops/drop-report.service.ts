import { and, eq, sql } from 'drizzle-orm';
import { sha256Hex, shareInOrder, waitPercentiles } from '@storefront/domain/drops.ts';
import type { Db } from '../db/client.ts';
import { dropEntries } from '../db/schema/index.ts';
import { admissionsOf } from './drop-queue.service.ts';
import { requireDrop } from './drops.service.ts';

/**
 * The drop report (issue 35 item 8, decision 066): entrants, challenge failures, admitted,
 * bought, units per buyer, time to sold out, median and p95 wait, the seed and its
 * commitment, and whether the admissions followed the committed order.
 */
export async function dropReport(db: Db, dropId: string) {
  const drop = await requireDrop(db, { dropId });
  const [counts] = await db
    .select({
      admitted: sql<number>`count(*) FILTER (WHERE ${dropEntries.admittedAt} IS NOT NULL)`.mapWith(Number),
      bought: sql<number>`count(*) FILTER (WHERE ${dropEntries.status} = 'bought')`.mapWith(Number),
      unitsSold: sql<number>`coalesce(sum(${dropEntries.unitsBought}), 0)`.mapWith(Number),
    })
    .from(dropEntries)
    .where(eq(dropEntries.dropId, dropId));
  const perBuyer = await db
    .select({ units: dropEntries.unitsBought, buyers: sql<number>`count(*)`.mapWith(Number) })
    .from(dropEntries)
    .where(and(eq(dropEntries.dropId, dropId), eq(dropEntries.status, 'bought')))
    .groupBy(dropEntries.unitsBought)
    .orderBy(dropEntries.unitsBought);
  // A wait runs from the start (or the join, when later) to the admission.
  const waits = await db
    .select({ seconds: sql<number>`extract(epoch FROM ${dropEntries.admittedAt} - greatest(${dropEntries.joinedAt}, ${drop.startedAt ?? drop.startsAt}))`.mapWith(Number) })
    .from(dropEntries)
    .where(and(eq(dropEntries.dropId, dropId), sql`${dropEntries.admittedAt} IS NOT NULL`));
  const { median, p95 } = waitPercentiles(waits.map((row) => Math.max(0, Math.round(row.seconds))));
  const admissions = await admissionsOf(db, dropId);
  const inOrderShare = shareInOrder(admissions);
  const revealed = drop.seedRevealedAt !== null;
  return {
    dropId: drop.id,
    name: drop.name,
    status: drop.status,
    entrants: drop.entryCount,
    challengeFailures: drop.challengeFailures,
    admitted: counts?.admitted ?? 0,
    bought: counts?.bought ?? 0,
    unitsSold: counts?.unitsSold ?? 0,
    unitsPerBuyer: perBuyer.map((row) => ({ units: row.units, buyers: row.buyers })),
    startedAt: drop.startedAt?.toISOString() ?? null,
    soldOutAt: drop.soldOutAt?.toISOString() ?? null,
    secondsToSoldOut: drop.startedAt && drop.soldOutAt ? Math.round((drop.soldOutAt.getTime() - drop.startedAt.getTime()) / 1000) : null,
    medianWaitSeconds: median,
    p95WaitSeconds: p95,
    seed: revealed ? drop.seed : null,
    seedHash: drop.seedHash,
    entryListHash: drop.entryListHash,
    seedMatchesCommitment: revealed ? (await sha256Hex(drop.seed)) === drop.seedHash : null,
    inOrderShare,
    admissionsOutOfOrder: Math.round((1 - inOrderShare) * admissions.length),
  };
}

export type DropReport = Awaited<ReturnType<typeof dropReport>>;

const csvCell = (value: unknown) => {
  const text = value === null || value === undefined ? '' : String(value);
  // A leading = + - @ would be read as a formula by spreadsheets.
  const safe = /^[=+\-@]/.test(text) ? `'${text}` : text;
  return /[",\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
};

/** The report as CSV: one "figure,value" line each; units per buyer as "buyers with N units". */
export function reportCsv(report: DropReport): string {
  const rows: [string, unknown][] = [
    ['drop', report.name],
    ['status', report.status],
    ['entrants', report.entrants],
    ['challenge failures', report.challengeFailures],
    ['admitted', report.admitted],
    ['bought', report.bought],
    ['units sold', report.unitsSold],
    ...report.unitsPerBuyer.map(({ units, buyers }): [string, unknown] => [`buyers with ${units} units`, buyers]),
    ['started at', report.startedAt],
    ['sold out at', report.soldOutAt],
    ['seconds to sold out', report.secondsToSoldOut],
    ['median wait seconds', report.medianWaitSeconds],
    ['p95 wait seconds', report.p95WaitSeconds],
    ['seed', report.seed],
    ['seed SHA-256 (commitment)', report.seedHash],
    ['entry list SHA-256', report.entryListHash],
    ['seed matches commitment', report.seedMatchesCommitment],
    ['share of admissions in order', report.inOrderShare],
    ['admissions out of order', report.admissionsOutOfOrder],
  ];
  return `figure,value\n${rows.map(([figure, value]) => `${csvCell(figure)},${csvCell(value)}`).join('\n')}\n`;
}
