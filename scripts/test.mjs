// `npm test`: unit and integration tests on a real Postgres, then the browser tests
// when a Chromium is found. It says plainly when it skips them; REQUIRE_E2E=1 makes
// that skip a failure (CI sets it).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const run = (command, args, env = {}) => spawnSync(command, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } }).status ?? 1;

export function findChromium() {
  const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'];
  return candidates.find((candidate) => candidate && fs.existsSync(candidate));
}

const results = [];
results.push(['unit and integration (vitest)', run('npx', ['vitest', 'run'])]);

const chromium = findChromium();
if (chromium) {
  const build = run('npm', ['run', 'build', '--silent']);
  results.push(['web build', build]);
  if (build === 0) results.push(['browser (playwright, ' + chromium + ')', run('npx', ['playwright', 'test', '-c', 'e2e/playwright.config.ts'], { CHROMIUM_PATH: chromium })]);
} else {
  const required = process.env.REQUIRE_E2E === '1';
  console.log(`\nBrowser tests SKIPPED: no Chromium found (install Debian's chromium or set CHROMIUM_PATH).${required ? ' REQUIRE_E2E=1: this is a failure.' : ''}`);
  if (required) results.push(['browser tests (required, no Chromium)', 1]);
}

console.log('\nSummary:');
for (const [name, status] of results) console.log(`  ${status === 0 ? 'PASS' : 'FAIL'}  ${name}`);
process.exit(results.every(([, status]) => status === 0) ? 0 : 1);
