import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS_DIR } from './migrate.ts';

/**
 * The migration journal as drizzle's migrator reads it: a database applies each migration whose
 * `when` is later than the last one it applied. Branches merged with their own migrations can
 * leave a later number with an earlier `when` (session 13: 0049 before 0048), which an upgraded
 * database would skip and a backup's restore refuses; numbers and times must rise together.
 */
describe('the migration journal', () => {
  it('numbers its migrations 0..n in order, each with a file and a later time than the one before', () => {
    const journal = JSON.parse(fs.readFileSync(path.join(MIGRATIONS_DIR, 'meta', '_journal.json'), 'utf8')) as { entries: { idx: number; tag: string; when: number }[] };
    journal.entries.forEach((entry, index) => {
      expect(entry.idx, entry.tag).toBe(index);
      expect(entry.tag.startsWith(String(index).padStart(4, '0')), entry.tag).toBe(true);
      expect(fs.existsSync(path.join(MIGRATIONS_DIR, `${entry.tag}.sql`)), entry.tag).toBe(true);
      if (index > 0) expect(entry.when, `${entry.tag} after ${journal.entries[index - 1]!.tag}`).toBeGreaterThan(journal.entries[index - 1]!.when);
    });
  });
});
