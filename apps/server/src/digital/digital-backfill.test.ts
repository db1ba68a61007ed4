import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eq, sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import { afterAll, describe, expect, it, inject } from 'vitest';
import { withDatabase } from '../../test/connection-string.ts';
import { testConfig } from '../../test/database.ts';
import { createAccount } from '../accounts/accounts.service.ts';
import { connectDatabase, type Database } from '../db/client.ts';
import { MIGRATIONS_DIR, runMigrations } from '../db/migrate.ts';
import { orderItems } from '../db/schema/index.ts';

/**
 * Migration order_item_digital_backfill (session 10): lines ordered before order_item.digital
 * existed (migration 0039) were all written false; the migration marks those whose product is
 * a digital one, and leaves physical lines and lines already right. The database is migrated
 * up to the migration before it, given such orders, then migrated to the end.
 */
// By name, not number: the merger may renumber migrations.
const BACKFILL = '_order_item_digital_backfill';
const name = `backfill_${randomBytes(6).toString('hex')}`;
const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'migrations-'));
let database: Database | undefined;

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: inject('adminDatabaseUrl') });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

afterAll(async () => {
  await database?.close();
  await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  fs.rmSync(folder, { recursive: true, force: true });
});

describe('the order_item.digital backfill', () => {
  it('marks the lines of older orders that were digital, and only those', async () => {
    // The migrations before the backfill, as a shop had them when those orders were placed.
    fs.cpSync(MIGRATIONS_DIR, folder, { recursive: true });
    const journalFile = path.join(folder, 'meta', '_journal.json');
    const journal = JSON.parse(fs.readFileSync(journalFile, 'utf8')) as { entries: { idx: number; tag: string }[] };
    const cut = journal.entries.findIndex((entry) => entry.tag.endsWith(BACKFILL));
    expect(cut).toBeGreaterThan(0);
    journal.entries = journal.entries.slice(0, cut);
    fs.writeFileSync(journalFile, JSON.stringify(journal));
    await admin(`CREATE DATABASE ${name}`);
    database = connectDatabase(withDatabase(inject('adminDatabaseUrl'), name), { max: 2 });
    await migrate(drizzle(database.pool), { migrationsFolder: folder });

    const { db } = database;
    const { userId } = await createAccount(
      db,
      testConfig(),
      { email: 'old@example.org', username: 'oldfan', name: 'Old Fan', password: 'pass words', confirmPassword: 'pass words', acceptedTerms: true },
      { emailVerified: true },
    );
    // Written as that schema had them: the columns of the product table added since (issue 39's
    // release_id) are not there yet, so the catalogue's own insert would name them.
    const product = async (id: string, productName: string, digital: boolean) => {
      await db.execute(sql`INSERT INTO product (id, name, description, price_cents, digital) VALUES (${id}, ${productName}, 'x', 800, ${digital})`);
      return id;
    };
    const album = await product('p_old_album', 'Old Album (digital album)', true);
    const lp = await product('p_old_lp', 'Old LP', false);
    // The order and its lines in that schema's columns too (later migrations add columns to both).
    await db.execute(sql`
      INSERT INTO "order" (id, user_id, checkout_id, payment_intent_id, subtotal_cents, shipping_cents, tax_cents, wallet_applied_cents, charged_cents, contact, shipping)
      VALUES ('o_old', ${userId}, 'c_old', 'pi_old', 3300, 999, 0, 4299, 0, ${JSON.stringify({ name: 'Old Fan', email: 'old@example.org', phone: '' })}::jsonb, '{}'::jsonb)`);
    await db.execute(sql`
      INSERT INTO order_item (order_id, position, product_id, name, qty, unit_cents)
      VALUES ('o_old', 0, ${album}, 'Old Album (digital album)', 1, 800), ('o_old', 1, ${lp}, 'Old LP', 1, 2500)`);

    const report = await runMigrations(database.pool);
    expect(report.applied.some((tag) => tag.endsWith(BACKFILL))).toBe(true);
    const lines = await db
      .select({ productId: orderItems.productId, digital: orderItems.digital })
      .from(orderItems)
      .where(eq(orderItems.orderId, 'o_old'))
      .orderBy(orderItems.position);
    expect(lines).toEqual([
      { productId: album, digital: true },
      { productId: lp, digital: false },
    ]);
  });
});
