import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { asc, sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import { afterAll, describe, expect, it, inject } from 'vitest';
import { withDatabase } from '../../test/connection-string.ts';
import { connectDatabase, type Database } from '../db/client.ts';
import { MIGRATIONS_DIR, runMigrations } from '../db/migrate.ts';
import { artists, productArtists, releaseArtists } from '../db/schema/index.ts';
import { unlinkedReport } from './unlinked.ts';

/**
 * Migration 0046_roster (issue 36, decision 070): each release's artist text becomes a roster
 * artist, one per distinct name (any case, spaces squeezed), its release and the products that
 * sell or carry it credited; a credit naming several acts, or leaving no address, stays unlinked
 * and is reported. The database is migrated up to the migration before it, given releases, then
 * migrated to the end.
 */
// By name, not number: the merger may renumber migrations.
const ROSTER = '_roster';
const name = `roster_${randomBytes(6).toString('hex')}`;
const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'migrations-'));
let database: Database | undefined;

async function admin(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: inject('adminDatabaseUrl') });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

afterAll(async () => {
  await database?.close();
  await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  fs.rmSync(folder, { recursive: true, force: true });
});

describe('the roster backfill from release.artist', () => {
  it('makes one artist per name, credits releases and their products, and leaves what it cannot match unlinked', async () => {
    fs.cpSync(MIGRATIONS_DIR, folder, { recursive: true });
    const journalFile = path.join(folder, 'meta', '_journal.json');
    const journal = JSON.parse(fs.readFileSync(journalFile, 'utf8')) as { entries: { idx: number; tag: string }[] };
    const cut = journal.entries.findIndex((entry) => entry.tag.endsWith(ROSTER));
    expect(cut).toBeGreaterThan(0);
    journal.entries = journal.entries.slice(0, cut);
    fs.writeFileSync(journalFile, JSON.stringify(journal));
    await admin(`CREATE DATABASE ${name}`);
    database = connectDatabase(withDatabase(inject('adminDatabaseUrl'), name), { max: 2 });
    await migrate(drizzle(database.pool), { migrationsFolder: folder });

    const { db } = database;
    const credits = ['Mo Beats', '  mo   beats ', 'Mo-Beats', 'Café Tacvba', 'Ana feat. Bo', 'Kim & Lee', '!!!'];
    const ids: Record<string, number> = {};
    for (const [index, artist] of credits.entries()) {
      const rows = await db.execute<{ id: number }>(
        sql`INSERT INTO release (kind, title, artist, release_date, price_cents) VALUES ('single', ${`Release ${index}`}, ${artist}, '2026-01-01', 100) RETURNING id`,
      );
      ids[artist] = rows.rows[0]!.id;
    }
    // In that schema's columns (later migrations add product columns the catalogue's insert names).
    const lp = 'p_mo_beats_lp';
    await db.execute(sql`INSERT INTO product (id, name, description, price_cents) VALUES (${lp}, 'Mo Beats LP', 'Vinyl.', 2500)`);
    await db.execute(sql`INSERT INTO release_product (product_id, release_id, kind) VALUES (${lp}, ${ids['Mo Beats']!}, 'bundle')`);

    const report = await runMigrations(database.pool);
    expect(report.applied.some((tag) => tag.endsWith(ROSTER))).toBe(true);

    const roster = await db.select({ id: artists.id, name: artists.name, slug: artists.slug }).from(artists).orderBy(asc(artists.slug));
    expect(roster.map(({ name: artistName, slug }) => ({ name: artistName, slug }))).toEqual([
      { name: 'Café Tacvba', slug: 'cafe-tacvba' },
      { name: 'Mo Beats', slug: 'mo-beats' },
      { name: 'Mo-Beats', slug: 'mo-beats-2' },
    ]);
    const idOf = (slug: string) => roster.find((artist) => artist.slug === slug)!.id;
    const links = await db.select().from(releaseArtists).orderBy(asc(releaseArtists.releaseId));
    expect(links.map((link) => [link.releaseId, link.artistId])).toEqual([
      [ids['Mo Beats'], idOf('mo-beats')],
      [ids['  mo   beats '], idOf('mo-beats')],
      [ids['Mo-Beats'], idOf('mo-beats-2')],
      [ids['Café Tacvba'], idOf('cafe-tacvba')],
    ]);
    expect(await db.select({ productId: productArtists.productId, artistId: productArtists.artistId }).from(productArtists)).toEqual([
      { productId: lp, artistId: idOf('mo-beats') },
    ]);

    // The operator's report names the three releases it could not match.
    const text = await unlinkedReport(db);
    expect(text).toContain('3 releases are credited to no roster artist');
    for (const artist of ['Ana feat. Bo', 'Kim & Lee', '!!!']) expect(text).toContain(`release ${ids[artist]}  Release ${credits.indexOf(artist)}  (credited as "${artist}")`);
  });
});
