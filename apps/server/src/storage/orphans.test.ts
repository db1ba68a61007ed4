import { eq, inArray, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, makeTempDir, testConfig, type TestDatabase } from '../../test/database.ts';
import { startTestApp } from '../../test/app.ts';
import { commands } from '../cli.ts';
import { startJobQueue } from '../jobs/queue.ts';
import type { Config } from '../config.ts';
import { contentPages, productImages, products, releases, storageObjects } from '../db/schema/index.ts';
import { collectOrphans } from './orphans.service.ts';
import { createStorageDeps, objectDownloadUrl, objectKey, storeImage, variantKey, type StorageDeps, type StorageObjectRow } from './storage.service.ts';
import { startTestS3Server, type TestS3Server } from './testing/s3-server.ts';
import { solidImage } from './testing/images.ts';

/**
 * Orphaned images (issue 25 item 8, decision 047) on real Postgres, with the local disk and
 * with S3 (s3rver on 127.0.0.1): an image in use stays, a replaced or never-used one is
 * deleted (row and bytes) once older than the grace period, a young one stays, and a dry run
 * lists what it would delete and deletes nothing.
 */
const BUCKET = 'shop-test.appspot.com';

describe.each(['local', 's3'] as const)('collecting orphaned images (%s storage)', (driverKind) => {
  let database: TestDatabase;
  let dataDir: ReturnType<typeof makeTempDir>;
  let s3: TestS3Server | undefined;
  let config: Config;
  let deps: StorageDeps;
  const logged: { fields: Record<string, unknown>; message: string }[] = [];
  const images: Record<'used' | 'replaced' | 'never' | 'cover' | 'fresh' | 'profile' | 'artwork', StorageObjectRow> = {} as never;

  /** Whether the object's original and every variant are still in the store. */
  async function bytesThere(row: StorageObjectRow): Promise<boolean[]> {
    return Promise.all([objectKey(row.blobKey), ...row.variantWidths.map((width) => variantKey(row.blobKey, width))].map(async (key) => (await deps.driver.stat(key)) !== null));
  }
  const rowThere = async (row: StorageObjectRow) => (await database.db.select().from(storageObjects).where(eq(storageObjects.path, row.path))).length === 1;

  beforeAll(async () => {
    database = await createTestDatabase();
    dataDir = makeTempDir('orphans-test');
    if (driverKind === 's3') s3 = await startTestS3Server({ prefix: 'orphans' });
    config = testConfig({ env: { DATA_DIR: dataDir.dir, ...s3?.env } });
    const log = {
      info: (fields: Record<string, unknown>, message: string) => logged.push({ fields, message }),
      warn: () => undefined,
    };
    deps = createStorageDeps({ db: database.db, config, log: log as unknown as StorageDeps['log'] & object });
    expect(deps.driver.kind).toBe(driverKind);
    const store = async (path: string, colour: number) => storeImage(deps, { bucket: BUCKET, path, bytes: await solidImage(40 + colour, 30), metadata: {}, createdBy: null });
    images.used = await store('products/vinyl/front.png', 1);
    images.replaced = await store('products/vinyl/old-front.png', 2);
    images.never = await store('products/tee/never-used.png', 3);
    images.cover = await store('content/home/cover.png', 4);
    images.profile = await store('content/people/label-boss.png', 5);
    images.fresh = await store('products/tee/just-uploaded.png', 6);
    images.artwork = await store('products/releases/night-drive.png', 7);

    // A product showed the old front, then it was replaced by the new one.
    await database.db.insert(products).values({ id: 'vinyl', name: 'Vinyl', description: 'A record', priceCents: 2500 });
    await database.db.insert(productImages).values({ productId: 'vinyl', position: 0, url: objectDownloadUrl(images.replaced) });
    await database.db
      .update(productImages)
      .set({ url: objectDownloadUrl(images.used) })
      .where(eq(productImages.productId, 'vinyl'));
    // The home page's cover (content pages keep JSON), an absolute URL this time.
    await database.db
      .insert(contentPages)
      .values({ slug: 'home', title: 'Home', body: { intro: 'Hi', covers: [{ image: `https://shop.example${objectDownloadUrl(images.cover)}`, link: '/shop' }] } })
      .onConflictDoUpdate({ target: contentPages.slug, set: { body: { intro: 'Hi', covers: [{ image: objectDownloadUrl(images.cover), link: '/shop' }] } } });
    // An account's picture, stored as the bare object path.
    await database.db.execute(
      sql`INSERT INTO "user" (id, name, email, email_verified, image, username, username_lower) VALUES ('u1', 'Boss', 'boss@example.org', true, ${images.profile.path}, 'boss', 'boss')`,
    );
    // A digital release's artwork, which no product shows (the release has no price yet).
    await database.db.insert(releases).values({ kind: 'album', title: 'Night Drive', artist: 'The Band', releaseDate: '2026-01-01', priceCents: 0, artwork: images.artwork.path });

    // Everything but the fresh upload is past a 72-hour grace period.
    const old = new Date(Date.now() - 100 * 3600_000);
    await database.db
      .update(storageObjects)
      .set({ timeCreated: old, updated: old })
      .where(
        inArray(
          storageObjects.path,
          [images.used, images.replaced, images.never, images.cover, images.profile, images.artwork].map((row) => row.path),
        ),
      );
  });

  afterAll(async () => {
    await database?.close();
    dataDir?.remove();
    await s3?.close();
  });

  it('the dry run lists the replaced and the never-used image and deletes nothing', async () => {
    const output = await commands['collect-orphans']!.run(['--dry-run', '--older-than-hours', '72'], { db: database.db, config });
    expect(output).toContain('Dry run: would delete 2 orphaned object(s)');
    expect(output).toContain(`${BUCKET}/products/vinyl/old-front.png`);
    expect(output).toContain(`${BUCKET}/products/tee/never-used.png`);
    for (const kept of [images.used, images.cover, images.profile, images.artwork, images.fresh]) expect(output).not.toContain(kept.path);
    expect(output).toContain('Kept: 4 in use, 1 younger than 72 hours.');
    for (const row of Object.values(images)) {
      expect(await rowThere(row), row.path).toBe(true);
      expect(await bytesThere(row), row.path).not.toContain(false);
    }
    expect(logged.filter((line) => line.message === 'deleted an orphaned stored object')).toEqual([]);
  });

  it('refuses a grace period under an hour and unknown arguments', async () => {
    await expect(commands['collect-orphans']!.run(['--older-than-hours', '0'], { db: database.db, config })).rejects.toThrow(/at least 1/);
    await expect(commands['collect-orphans']!.run(['--now'], { db: database.db, config })).rejects.toThrow(/Usage/);
  });

  it('keeps everything when the grace period is longer than their age', async () => {
    const report = await collectOrphans(deps, { olderThanHours: 200 });
    expect(report.orphans).toEqual([]);
    expect(report.young).toBe(7);
  });

  it('deletes the replaced and the never-used image, row and bytes, logs each, and keeps the used, the young and the referenced', async () => {
    const report = await collectOrphans(deps, { olderThanHours: 72 });
    expect(report.orphans.map((orphan) => orphan.path).sort()).toEqual(['products/tee/never-used.png', 'products/vinyl/old-front.png']);
    expect(report).toMatchObject({ kept: 4, young: 1, dryRun: false });
    for (const gone of [images.replaced, images.never]) {
      expect(await rowThere(gone), gone.path).toBe(false);
      expect(await bytesThere(gone), gone.path).toEqual(gone.variantWidths.map(() => false).concat(false));
    }
    for (const kept of [images.used, images.cover, images.profile, images.artwork, images.fresh]) {
      expect(await rowThere(kept), kept.path).toBe(true);
      expect(await bytesThere(kept), kept.path).not.toContain(false);
    }
    const deleted = logged.filter((line) => line.message === 'deleted an orphaned stored object').map((line) => line.fields.path);
    expect(deleted.sort()).toEqual(['products/tee/never-used.png', 'products/vinyl/old-front.png']);
    if (s3) {
      // Nothing of the deleted images is left in the bucket.
      const keys = await s3.keys();
      for (const gone of [images.replaced, images.never]) expect(keys.filter((key) => key.includes(gone.blobKey))).toEqual([]);
      expect(keys.some((key) => key.includes(images.used.blobKey))).toBe(true);
    }
    // A second run has nothing to do.
    expect((await collectOrphans(deps, { olderThanHours: 72 })).orphans).toEqual([]);
  });

  it('the CLI deletes an image once the product stops using it and it is past the grace period', async () => {
    await database.db.delete(productImages).where(eq(productImages.productId, 'vinyl'));
    const output = await commands['collect-orphans']!.run(['--older-than-hours', '72'], { db: database.db, config });
    expect(output).toContain('Deleted 1 orphaned object(s)');
    expect(output).toContain(`${BUCKET}/products/vinyl/front.png`);
    expect(await rowThere(images.used)).toBe(false);
    expect(await rowThere(images.fresh)).toBe(true);
  });

  it("the shop's daily job (storage-orphans) collects them too", async () => {
    const shop = await startTestApp({ database, listen: false, config: { env: { DATA_DIR: dataDir.dir, ORPHAN_GRACE_HOURS: '72', ...s3?.env } } });
    const jobs = await startJobQueue(database.pool, () => undefined);
    try {
      const unused = await storeImage(deps, { bucket: BUCKET, path: 'products/tee/left-over.png', bytes: await solidImage(20, 20), metadata: {}, createdBy: null });
      const old = new Date(Date.now() - 73 * 3600_000);
      await database.db.update(storageObjects).set({ timeCreated: old, updated: old }).where(eq(storageObjects.path, unused.path));
      // The tick of its cron schedule, now.
      await jobs.send('storage-orphans', {});
      const deadline = Date.now() + 20_000;
      while ((await rowThere(unused)) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
      expect(await rowThere(unused)).toBe(false);
      expect(await bytesThere(unused)).not.toContain(true);
      expect(await rowThere(images.fresh)).toBe(true);
    } finally {
      await jobs.stop();
      await shop.close();
    }
  });
});
