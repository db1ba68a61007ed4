import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { defineConfig, devices } from '@playwright/test';

const port = Number(process.env.E2E_PORT ?? 3199);
// The e2e server's DATA_DIR (server.mjs makes and removes it). Workers inherit process.env,
// so a test can run the CLI against the same database (e.g. wallet.spec.ts's service token).
const dataDir = (process.env.E2E_DATA_DIR ??= path.join(os.tmpdir(), `storefront-e2e-${randomUUID()}`));

// The port of a sister product's page (firebase-sdk.spec.ts serves it there, on another
// origin that the shop lists in CORS_ORIGINS): free now, chosen once, inherited by workers.
const sisterPort = (process.env.E2E_SISTER_PORT ??= execFileSync(
  process.execPath,
  ['-e', "const s = require('node:net').createServer().listen(0, '127.0.0.1', () => { process.stdout.write(String(s.address().port)); s.close(); })"],
  { encoding: 'utf8' },
).trim());

export default defineConfig({
  testDir: '.',
  testMatch: '**/*.spec.ts',
  fullyParallel: false,
  workers: 1,
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: [['list']],
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    ...devices['Desktop Chrome'],
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
    },
    trace: 'retain-on-failure',
  },
  webServer: {
    command: `node server.mjs`,
    url: `http://127.0.0.1:${port}/readyz`,
    timeout: 120_000,
    reuseExistingServer: false,
    env: { E2E_PORT: String(port), E2E_DATA_DIR: dataDir, E2E_SISTER_PORT: sisterPort },
    stdout: 'ignore',
    stderr: 'pipe',
  },
});
