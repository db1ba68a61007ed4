import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { Db } from '../db/client.ts';
import { contentPages, seedRuns, timelineEntries } from '../db/schema/index.ts';
import { eq } from 'drizzle-orm';
import type { Config } from '../config.ts';

/**
 * Sample content for a new embedded database. Each seeder runs once, in one
 * transaction with its `seed_runs` row; later areas append their own seeders.
 */
export interface SeedContext {
  config: Config;
  log: (message: string) => void;
}

export interface Seeder {
  name: string;
  /** Must be safe to run again if a crash cut it short (its row is written after it). */
  run(db: Db, context: SeedContext): Promise<void>;
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
  async run(db, { config }) {
    await db.transaction(async (tx) => {
      for (const slug of ['home', 'about', 'privacy-policy']) {
        const page = pageFile.parse(readJson(config.contentDir, `${slug}.json`));
        await tx.insert(contentPages).values({ slug, title: page.title, body: page }).onConflictDoNothing();
      }
      const history = historyFile.parse(readJson(config.contentDir, 'history.json'));
      await tx.delete(timelineEntries);
      await tx.insert(timelineEntries).values(history.entries.map((entry) => ({ ...entry, year: Number(entry.releasedOn.slice(0, 4)) })));
    });
  },
};

/**
 * Runs the seeders that have not run yet, in order; returns the names of those that did. The
 * caller hands over the areas' seeders (server.ts), so this folder imports no area.
 */
export async function runSeeds(db: Db, context: SeedContext, seeders: readonly Seeder[]): Promise<string[]> {
  const ran: string[] = [];
  for (const seeder of seeders) {
    const [done] = await db.select().from(seedRuns).where(eq(seedRuns.name, seeder.name));
    if (done) continue;
    await seeder.run(db, context);
    await db.insert(seedRuns).values({ name: seeder.name }).onConflictDoNothing();
    ran.push(seeder.name);
  }
  if (ran.length > 0) context.log(`Seeded sample content: ${ran.join(', ')}`);
  return ran;
}
