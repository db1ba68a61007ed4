import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { Db } from '../db/client.ts';
import { contentPages, seedRuns, timelineEntries } from '../db/schema/index.ts';
import type { Tx } from '../db/transaction.ts';

/**
 * Sample content for a new embedded database. Each seeder runs once, in one
 * transaction with its `seed_runs` row; later areas append their own seeders.
 */
export interface SeedContext {
  contentDir: string;
  log: (message: string) => void;
}

export interface Seeder {
  name: string;
  run(tx: Tx, context: SeedContext): Promise<void>;
}

const pageFile = z.object({ title: z.string().min(1) }).passthrough();
const historyFile = z.object({
  entries: z.array(z.object({ releasedOn: z.iso.date(), title: z.string().min(1), format: z.string().min(1), note: z.string().default('') })),
});

function readJson(contentDir: string, name: string): unknown {
  return JSON.parse(fs.readFileSync(path.join(contentDir, name), 'utf8'));
}

export const contentSeeder: Seeder = {
  name: 'content-pages',
  async run(tx, { contentDir }) {
    for (const slug of ['home', 'about', 'privacy-policy']) {
      const page = pageFile.parse(readJson(contentDir, `${slug}.json`));
      await tx.insert(contentPages).values({ slug, title: page.title, body: page }).onConflictDoNothing();
    }
    const history = historyFile.parse(readJson(contentDir, 'history.json'));
    await tx.insert(timelineEntries).values(
      history.entries.map((entry) => ({ ...entry, year: Number(entry.releasedOn.slice(0, 4)) })),
    );
  },
};

export const defaultSeeders: Seeder[] = [contentSeeder];

/** Runs the seeders that have not run yet; returns the names of those that did. */
export async function runSeeds(db: Db, context: SeedContext, seeders: Seeder[] = defaultSeeders): Promise<string[]> {
  const ran: string[] = [];
  for (const seeder of seeders) {
    const didRun = await db.transaction(async (tx) => {
      const inserted = await tx.insert(seedRuns).values({ name: seeder.name }).onConflictDoNothing().returning();
      if (inserted.length === 0) return false;
      await seeder.run(tx, context);
      return true;
    });
    if (didRun) ran.push(seeder.name);
  }
  if (ran.length > 0) context.log(`Seeded sample content: ${ran.join(', ')}`);
  return ran;
}
