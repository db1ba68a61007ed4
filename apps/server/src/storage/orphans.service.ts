import { and, lt, sql } from 'drizzle-orm';
import { encodeObjectPath } from '@storefront/domain/storage-location.ts';
import { isPublicImagePath } from '@storefront/domain/storage-paths.ts';
import type { Db } from '../db/client.ts';
import { contentPages, datAssets, productImages, releases, storageObjects, users } from '../db/schema/index.ts';
import { deleteObjectGeneration, type StorageDeps } from './storage.service.ts';

/**
 * Orphaned objects (issue 25 item 8, decision 047): an image uploaded and never used, or
 * replaced on a product or a page, is deleted (its row and its bytes, on the local disk or in
 * S3) once it is older than the grace period and nothing refers to it.
 *
 * "Refers to" is any of the places the shop keeps an image's address: a product image
 * (`product_image.url`), a content page's JSON (home covers and every other page), an
 * account's `user.image`, a sister product's artwork (`dat_asset.artwork_url`) and a digital
 * release's artwork (`release.artwork`: a release with no price has no product image); an
 * address is the object's download URL (`/v0/b/<bucket>/o/<encoded path>?...`, absolute or
 * same-origin) or its bare path. Only the paths the shop's images live under (`products/`,
 * `content/`, the only ones anyone can write) are ever collected.
 */
export interface OrphanedObject {
  bucket: string;
  path: string;
  size: number;
  /** When the object was last written or changed. */
  updated: Date;
}

export interface OrphanReport {
  /** What was deleted (or, in a dry run, would be). */
  orphans: OrphanedObject[];
  /** Objects old enough that something still refers to (or not under an image folder): kept. */
  kept: number;
  /** Objects younger than the grace period (kept, not examined). */
  young: number;
  dryRun: boolean;
  olderThanHours: number;
}

/** The shortest grace period allowed: an upload in progress is never collected. */
export const ORPHAN_GRACE_HOURS_MINIMUM = 1;

const likeEscaped = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** True when any stored address names this object. */
export async function isObjectReferenced(db: Db, bucket: string, objectPath: string): Promise<boolean> {
  const asUrl = `%/v0/b/${likeEscaped(encodeURIComponent(bucket))}/o/${likeEscaped(encodeObjectPath(objectPath))}%`;
  const asPath = `%${likeEscaped(objectPath)}%`;
  const names = (column: unknown) => sql`(${column} LIKE ${asUrl} OR ${column} LIKE ${asPath})`;
  const result = await db.execute<{ referenced: boolean }>(sql`
    SELECT EXISTS (SELECT 1 FROM ${productImages} WHERE ${names(productImages.url)})
        OR EXISTS (SELECT 1 FROM ${contentPages} WHERE ${names(sql`${contentPages.body}::text`)})
        OR EXISTS (SELECT 1 FROM ${users} WHERE ${users.image} IS NOT NULL AND ${names(users.image)})
        OR EXISTS (SELECT 1 FROM ${datAssets} WHERE ${names(datAssets.artworkUrl)})
        OR EXISTS (SELECT 1 FROM ${releases} WHERE ${releases.artwork} <> '' AND ${names(releases.artwork)}) AS referenced`);
  return result.rows[0]?.referenced === true;
}

/**
 * Finds the orphans and, unless `dryRun`, deletes them, logging each. Every object is
 * checked for references just before it is deleted, and deleted only if it is still the
 * upload that was looked at, so an image used or uploaded again meanwhile stays.
 */
export async function collectOrphans(deps: StorageDeps, options: { olderThanHours: number; dryRun?: boolean; now?: Date }): Promise<OrphanReport> {
  if (!(options.olderThanHours >= ORPHAN_GRACE_HOURS_MINIMUM)) throw new Error(`The grace period must be at least ${ORPHAN_GRACE_HOURS_MINIMUM} hour.`);
  const dryRun = options.dryRun ?? false;
  const cutoff = new Date((options.now ?? new Date()).getTime() - options.olderThanHours * 3600_000);
  const rows = await deps.db
    .select({ bucket: storageObjects.bucket, path: storageObjects.path, generation: storageObjects.generation, size: storageObjects.size, updated: storageObjects.updated })
    .from(storageObjects)
    .where(and(lt(storageObjects.updated, cutoff), lt(storageObjects.timeCreated, cutoff)))
    .orderBy(storageObjects.bucket, storageObjects.path);
  const [{ total } = { total: 0 }] = await deps.db.select({ total: sql<number>`count(*)::int` }).from(storageObjects);
  const report: OrphanReport = { orphans: [], kept: 0, young: total - rows.length, dryRun, olderThanHours: options.olderThanHours };
  for (const row of rows) {
    if (!isPublicImagePath(row.path) || (await isObjectReferenced(deps.db, row.bucket, row.path))) {
      report.kept += 1;
      continue;
    }
    const orphan: OrphanedObject = { bucket: row.bucket, path: row.path, size: row.size, updated: row.updated };
    if (dryRun) {
      report.orphans.push(orphan);
      continue;
    }
    const deleted = await deleteObjectGeneration(deps, row.bucket, row.path, row.generation);
    if (!deleted) continue;
    report.orphans.push(orphan);
    deps.log?.info({ bucket: row.bucket, path: row.path, size: row.size, updated: row.updated.toISOString() }, 'deleted an orphaned stored object');
  }
  if (!dryRun)
    deps.log?.info({ deleted: report.orphans.length, kept: report.kept, young: report.young, olderThanHours: options.olderThanHours }, 'orphaned stored objects collected');
  return report;
}
