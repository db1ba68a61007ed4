import path from 'node:path';
import { defineConfig } from 'vitest/config';
import '../exit-code.ts';

/**
 * `npm run test:reliability`: the slower proof suite of docs/reliability.md (backups,
 * hardening, hostile input, money across processes, crash safety). It reuses the normal
 * suite's Postgres and console checks; the root config leaves these files out so that
 * `npm test` stays fast.
 */
const root = path.resolve(import.meta.dirname, '../../../..');

export default defineConfig({
  root,
  test: {
    include: [
      'apps/server/test/reliability/**/*.test.ts',
      // Points 1 and 2 (uploads) of the proof live with their areas and run in `npm test`
      // too; they are listed here so that this command runs the whole proof.
      'apps/server/test/access-matrix.test.ts',
      'apps/server/src/storage/storage.test.ts',
      'apps/server/src/storage/storage.images.test.ts',
    ],
    exclude: ['**/node_modules/**', '**/dist/**'],
    environment: 'node',
    globalSetup: ['apps/server/test/global-setup.ts'],
    setupFiles: ['apps/server/test/setup-console.ts'],
    // Files start real server processes and load them: two at a time on a 2-core machine.
    maxWorkers: 2,
    // Generous: each test starts Postgres clusters and server processes, and the machine's
    // 2 cores may be shared (seen: backup and crash tests passing 120 s on a loaded machine
    // only by the time they took). A wrong result still fails at once.
    testTimeout: 300_000,
    hookTimeout: 300_000,
    teardownTimeout: 60_000,
  },
});
