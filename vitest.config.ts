import { defineConfig } from 'vitest/config';
import './apps/server/test/exit-code.ts';

/**
 * One run covers the server, the shared packages and (later) the web app. The global
 * setup starts one real Postgres for the whole run; each test file gets its own
 * database cloned from a migrated template (apps/server/test/database.ts).
 */
export default defineConfig({
  test: {
    include: ['apps/server/**/*.test.ts', 'packages/**/*.test.ts', 'apps/web/src/**/*.test.{ts,tsx}', 'tools/**/*.test.ts', 'bench/lib/**/*.test.ts'],
    // The reliability suite has its own config (npm run test:reliability).
    exclude: ['**/node_modules/**', '**/dist/**', 'apps/server/test/reliability/**'],
    environment: 'node',
    globalSetup: ['apps/server/test/global-setup.ts'],
    setupFiles: ['apps/server/test/setup-console.ts'],
    testTimeout: 20_000,
    hookTimeout: 60_000,
    teardownTimeout: 30_000,
  },
});
