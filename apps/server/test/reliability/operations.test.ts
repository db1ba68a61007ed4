import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createAccount } from '../../src/accounts/accounts.service.ts';
import { connectDatabase, type Database } from '../../src/db/client.ts';
import { users } from '../../src/db/schema/index.ts';
import { withDatabase } from '../connection-string.ts';
import { testConfig } from '../database.ts';
import { freePort } from '../../src/db/embedded.ts';
import { childEnv, poll, repoRoot, spawnServer, stopAllServers, waitUntilReady, withTimeout } from './processes.ts';

/**
 * docs/operations.md, checked: every command in it is a fenced block named by a
 * `<!-- block: id -->` comment. The blocks that can run on a test machine run here, with
 * the guide's paths swapped for temporary ones (the CLI in production mode on a fresh
 * PostgreSQL database, backups and restores, migrations, curl against a started server).
 * The others (sudo, systemd, nginx, the build) are listed below with the test or CI step
 * that covers them.
 */
const GUIDE = path.join(repoRoot, 'docs/operations.md');

interface Block {
  id: string;
  lang: string;
  body: string;
}

type Coverage =
  | { run: string }
  /** `files`: what the block needs from the repository (checked to exist, or to be coming). */
  | { elsewhere: string; files?: string[] };

/** Every block of the guide, and how it is proven. A new block must be added here. */
const COVERAGE: Record<string, Coverage> = {
  install: { elsewhere: 'the production install from a clean clone (`npm ci`, `npm run build`): CI, issue 13 item 4 (one production build)' },
  'create-database': { elsewhere: 'not run: needs a system PostgreSQL service and sudo; the tests create their databases with the same SQL (apps/server/test/database.ts)' },
  migrate: { run: 'here: twice at once on an empty database, by the built CLI (production); the migrations are applied once' },
  'settings-file': { elsewhere: 'not run: sudo and the system user; the test writes the same file with mode 0600 in a temporary folder' },
  'built-cli': { run: 'here: the built CLI, without npm' },
  'env-file': { run: 'here: every variable is a setting of config.ts (or one being added, PENDING_SETTINGS), and the file is the CLI environment of these runs' },
  'make-secret': { run: 'here' },
  'load-env': { run: 'here: before every CLI block' },
  'make-admin': { run: 'here, in production mode with DATABASE_URL (also operator-cli.test.ts)' },
  'label-accounts': { run: 'here (also accounts.test.ts follows the reset link)' },
  nginx: {
    elsewhere: 'nginx.test.ts: `nginx -t` of deploy/nginx-site.conf inside the stock nginx.conf, its access log and request ids behind a running nginx',
    files: ['deploy/nginx-site.conf'],
  },
  'nginx-whole-file': { elsewhere: 'nginx.test.ts and two-instances.test.ts run deploy/nginx.conf with the site file it includes', files: ['deploy/nginx.conf'] },
  systemd: { elsewhere: 'the systemd unit test (issue 13 item 5) runs deploy/storefront.service', files: ['deploy/storefront.service'] },
  instances: {
    run: 'here: the block writes the unit and the instance files; two instances start from them with systemd’s order of settings files (the rolling restart under load: two-instances.test.ts)',
  },
  backup: { run: 'here (and backup.test.ts: images and sessions survive a restore on a new DATA_DIR)' },
  stop: { elsewhere: 'the systemd unit test (issue 13 item 5): SIGTERM drains and exits', files: ['deploy/storefront.service'] },
  restore: { run: 'here, with no server running (backup.test.ts: refused under a running server)' },
  start: { elsewhere: 'the systemd unit test (issue 13 item 5)', files: ['deploy/storefront.service'] },
  'pg-dump': { run: 'here when the machine has a pg_dump at least as new as the test PostgreSQL (else reported as skipped)' },
  'pg-restore': { run: 'with pg-dump' },
  's3-sync': { elsewhere: 'not run: the operator’s S3 tooling; the S3 driver is tested against an S3-protocol server on loopback (issue 13 item 2)' },
  upgrade: { elsewhere: 'git/npm/systemd steps; migrations at start under a lock are run here (migrate), the build by CI (issue 13 item 4)' },
  health: { run: 'here, against a started server' },
  metrics: { run: 'here, against an instance started from the instances block' },
  'alert-rules': {
    elsewhere: 'not run: sudo and a Prometheus install; apps/server/test/prometheus-rules.test.ts runs promtool check and test rules on the file (issue 40 item 13)',
    files: ['deploy/prometheus-rules.yml'],
  },
  'collect-orphans-dry-run': { run: 'here, in production mode (images kept, replaced and collected, on disk and S3: src/storage/orphans.test.ts)' },
  'collect-orphans': { run: 'here, in production mode' },
  'reseal-secrets': { run: 'here, in production mode (the rotation itself: overlap, re-seal, retirement, in src/accounts/secret-rotation.test.ts)' },
  logs: { elsewhere: 'not run: journald; the log format is tested with the logger (issue 13 item 8)' },
  'gift-card-mark': {
    elsewhere: 'giftcards.test.ts calls setProductGiftCard through /fn as this block does: an admin marks a product, anyone else is refused, amounts out of bounds are refused',
    files: ['apps/server/src/giftcards/giftcards.test.ts'],
  },
  'roster-unlinked': {
    elsewhere: 'roster-backfill.test.ts migrates releases with matched and unmatched credits and checks the report this command prints (unlinkedReport)',
    files: ['apps/server/src/roster/roster-backfill.test.ts'],
  },
};

/** Settings the guide uses that other branches add to config.ts (empty this list once merged). */
const PENDING_SETTINGS: string[] = [];
/** Files the guide names that other branches add (empty this list once merged). */
const PENDING_FILES: string[] = [];

function readBlocks(): Block[] {
  const text = fs.readFileSync(GUIDE, 'utf8');
  const blocks = [...text.matchAll(/<!-- block: ([a-z0-9-]+) -->\n```(\w+)\n([\s\S]*?)```/g)].map((match) => ({ id: match[1]!, lang: match[2]!, body: match[3]! }));
  const fences = (text.match(/^```\w*$/gm) ?? []).length / 2;
  expect(blocks.length, 'every fenced block in docs/operations.md has a <!-- block: id --> line right above it').toBe(fences);
  return blocks;
}

const blocks = readBlocks();
const block = (id: string) => {
  const found = blocks.find((candidate) => candidate.id === id);
  if (!found) throw new Error(`docs/operations.md has no block ${id}`);
  return found.body;
};

// The guide's places, swapped for this run's.
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'storefront-operations-'));
const envFile = path.join(work, 'storefront.env');
const backups = path.join(work, 'backups');
const dataDir = path.join(work, 'data');
const today = new Date().toISOString().slice(0, 10);
let database: Database;
let databaseName: string;
let databaseUrl: string;
let serverBase = 'http://127.0.0.1:3000';

const etcStorefront = path.join(work, 'etc-storefront');
const systemdDir = path.join(work, 'systemd');
/** The guide's instance ports (PORT, METRICS_PORT), swapped for free ones in beforeAll. */
const ports = new Map<string, number>([
  ['3000', 0],
  ['3001', 0],
  ['9101', 0],
  ['9102', 0],
]);

function substitute(script: string): string {
  let result = script
    .replaceAll('/etc/storefront/storefront.env', envFile)
    .replaceAll('/etc/storefront/', `${etcStorefront}/`)
    .replaceAll('/etc/systemd/system/', `${systemdDir}/`);
  // The instance files' ports and the scraper's (never the fixed ports of the guide: other runs use them).
  for (const [guide, free] of ports) result = result.replaceAll(`PORT=${guide}\\n`, `PORT=${free}\\n`).replaceAll(`127.0.0.1:${guide}/metrics`, `127.0.0.1:${free}/metrics`);
  return result
    .replaceAll('/srv/storefront/data-', path.join(work, 'data-'))
    .replaceAll('/srv/storefront', repoRoot)
    .replaceAll('/var/backups/storefront', backups)
    .replaceAll('shop-2026-11-23', `shop-${today}`)
    .replaceAll('http://127.0.0.1:3000', serverBase);
}

/** Runs guide blocks in bash (-e: the first failing command fails the block). */
async function runBlocks(...ids: string[]): Promise<{ code: number | null; output: string }> {
  return runScript(substitute(ids.map(block).join('\n')), ids);
}

/** A block with root's steps as this user: `sudo` dropped, `systemctl` (no systemd here) left out. */
async function runAsOperator(id: string): Promise<{ code: number | null; output: string }> {
  const script = substitute(block(id))
    .replace(/^sudo systemctl .*$/gm, ':')
    .replaceAll('sudo ', '');
  return runScript(script, [id]);
}

async function runScript(script: string, ids: string[]): Promise<{ code: number | null; output: string }> {
  const child = spawn('bash', ['-eo', 'pipefail', '-c', script], { cwd: repoRoot, env: childEnv({}), stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const code = await withTimeout(new Promise<number | null>((resolve) => child.on('exit', resolve)), 180_000, `blocks ${ids.join(', ')}`);
  return { code, output };
}

async function admin<T>(run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: inject('adminDatabaseUrl') });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

beforeAll(async () => {
  // The production build the CLI and the instances run (a no-op when it is up to date).
  const build = spawnSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { cwd: repoRoot, encoding: 'utf8' });
  expect(build.status, build.stderr).toBe(0);
  for (const guide of ports.keys()) ports.set(guide, await freePort());
  fs.mkdirSync(etcStorefront, { recursive: true });
  fs.mkdirSync(systemdDir, { recursive: true });
  // An empty database, as an operator's new PostgreSQL has: the guide's migrate makes it.
  databaseName = `ops_${randomBytes(6).toString('hex')}`;
  await admin((client) => client.query(`CREATE DATABASE ${databaseName}`));
  databaseUrl = withDatabase(inject('adminDatabaseUrl'), databaseName);
  database = connectDatabase(databaseUrl, { max: 2 });

  // The guide's environment file, with this run's database, folders and secrets.
  const overrides: Record<string, string> = {
    DATABASE_URL: databaseUrl,
    DATA_DIR: dataDir,
    PUBLIC_URL: 'https://shop.example',
    AUTH_SECRET: randomBytes(32).toString('base64url'),
    SMTP_URL: 'smtp://127.0.0.1:1',
    LOG_LEVEL: 'silent',
  };
  const lines = block('env-file')
    .split('\n')
    .filter((line) => line.includes('='))
    .map((line) => {
      const name = line.slice(0, line.indexOf('='));
      return name in overrides ? `${name}=${overrides[name]}` : line;
    });
  fs.writeFileSync(envFile, `${lines.join('\n')}\n`, { mode: 0o600 });
});

afterAll(async () => {
  await stopAllServers();
  await database?.close();
  if (databaseName) await admin((client) => client.query(`DROP DATABASE IF EXISTS ${databaseName} WITH (FORCE)`));
  fs.rmSync(work, { recursive: true, force: true });
}, 120_000);

describe('docs/operations.md', () => {
  it('has every command in a named block, each run here or covered by a named test', () => {
    const ids = blocks.map((candidate) => candidate.id);
    expect(new Set(ids).size, 'block names are unique').toBe(ids.length);
    expect(ids.sort()).toEqual(Object.keys(COVERAGE).sort());
    const pending: string[] = [];
    for (const [id, coverage] of Object.entries(COVERAGE)) {
      if (!('files' in coverage)) continue;
      for (const file of coverage.files ?? []) {
        if (fs.existsSync(path.join(repoRoot, file))) continue;
        expect(PENDING_FILES, `${file} (block ${id}) exists, or is being added by another branch`).toContain(file);
        pending.push(`${id}: ${file}`);
      }
    }
    // For the lead: what runs where.
    console.log(
      [
        'docs/operations.md blocks:',
        ...Object.entries(COVERAGE).map(([id, coverage]) => `  ${id.padEnd(16)} ${'run' in coverage ? `run ${coverage.run}` : `covered elsewhere: ${coverage.elsewhere}`}`),
        ...(pending.length > 0 ? [`  files still to come from other branches: ${pending.join('; ')}`] : []),
      ].join('\n'),
    );
  });

  it('names only real settings in its environment file, in a form both systemd and the shell read', () => {
    const configSource = fs.readFileSync(path.join(repoRoot, 'apps/server/src/config.ts'), 'utf8');
    const names = block('env-file')
      .split('\n')
      .filter((line) => line.includes('='))
      .map((line) => line.slice(0, line.indexOf('=')));
    expect(names.length).toBeGreaterThan(5);
    for (const name of names) {
      const known = new RegExp(`\\b${name}:`).test(configSource) || PENDING_SETTINGS.includes(name);
      expect(known, `${name} is a setting of apps/server/src/config.ts`).toBe(true);
    }
    // Sourced by bash (load-env) without errors, with the values systemd would see.
    const shell = spawnSync('bash', ['-c', `set -a && . ${JSON.stringify(envFile)} && set +a && printf '%s' "$MAIL_FROM"`], { encoding: 'utf8' });
    expect(shell.status, shell.stderr).toBe(0);
    expect(shell.stdout).toBe('Street Flavor Records <shop@shop.example>');
  });

  it('makes a secret of the right size (make-secret)', async () => {
    const { code, output } = await runBlocks('make-secret');
    expect(code, output).toBe(0);
    expect(Buffer.from(output.trim(), 'base64').length).toBe(48);
  });

  it('migrates an empty database, once, even when two run at the same time (load-env, migrate)', async () => {
    const runs = await Promise.all([runBlocks('load-env', 'migrate'), runBlocks('load-env', 'migrate')]);
    for (const run of runs) {
      expect(run.code, run.output).toBe(0);
      expect(run.output).toContain('Migrations applied.');
      expect(run.output).toMatch(/Database: the PostgreSQL at DATABASE_URL/);
    }
    const journal = JSON.parse(fs.readFileSync(path.join(repoRoot, 'apps/server/drizzle/meta/_journal.json'), 'utf8')) as { entries: unknown[] };
    const { rows } = await database.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM drizzle.__drizzle_migrations');
    expect(rows[0]!.n).toBe(journal.entries.length);
  });

  it('makes the first admin and the label accounts (make-admin, label-accounts)', async () => {
    const config = testConfig();
    await createAccount(
      database.db,
      config,
      { email: 'owner@shop.example', username: 'ShopOwner', name: 'Owner', password: 'pass words', confirmPassword: 'pass words', acceptedTerms: true },
      { emailVerified: true },
    );
    const made = await runBlocks('load-env', 'make-admin');
    expect(made.code, made.output).toBe(0);
    const [owner] = await database.db.select({ role: users.role }).from(users).where(eq(users.email, 'owner@shop.example'));
    expect(owner!.role).toBe('admin');

    const labels = await runBlocks('load-env', 'label-accounts');
    expect(labels.code, labels.output).toBe(0);
    expect(labels.output.match(/^https:\/\/shop\.example\/api\/auth\/reset-password\/\S+$/gm)).toHaveLength(2);
    for (const username of ['streetflavor', 'spndat']) {
      const [label] = await database.db.select().from(users).where(eq(users.usernameLower, username));
      expect(label, username).toMatchObject({ emailVerified: true, accountType: 'RecordLabel' });
    }
  });

  it('backs up and restores the database and the stored files (backup, restore)', async () => {
    const stored = path.join(dataDir, 'storage', 'objects', 'guide-check');
    fs.mkdirSync(path.dirname(stored), { recursive: true });
    fs.writeFileSync(stored, 'an image, as far as this test cares');

    const backup = await runBlocks('load-env', 'backup');
    expect(backup.code, backup.output).toBe(0);
    expect(backup.output).toContain(`to ${path.join(backups, `shop-${today}.backup`)}`);
    expect(backup.output).toMatch(/files: +1 stored files/);

    await database.pool.query(`DELETE FROM "user" WHERE email = 'owner@shop.example'`);
    fs.rmSync(stored);
    const restore = await runBlocks('load-env', 'restore');
    expect(restore.code, restore.output).toBe(0);
    expect(restore.output).toContain('Restored 1 stored files');
    expect((await database.pool.query(`SELECT 1 FROM "user" WHERE email = 'owner@shop.example'`)).rowCount).toBe(1);
    expect(fs.readFileSync(stored, 'utf8')).toBe('an image, as far as this test cares');
  });

  const pgDump = spawnSync('pg_dump', ['--version'], { encoding: 'utf8' });
  const pgDumpMajor = Number(/(\d+)\.\d+/.exec(pgDump.stdout ?? '')?.[1] ?? 0);
  let serverMajor = 0;
  it('knows whether this machine can run pg_dump against the test PostgreSQL', async () => {
    const { rows } = await database.pool.query<{ v: string }>("SELECT current_setting('server_version_num') AS v");
    serverMajor = Math.floor(Number(rows[0]!.v) / 10000);
    expect(serverMajor).toBeGreaterThanOrEqual(15);
    if (pgDumpMajor < serverMajor)
      console.log(
        `pg-dump, pg-restore: not run here (pg_dump ${pgDumpMajor || 'missing'}, PostgreSQL ${serverMajor}); CI with TEST_DATABASE_URL on PostgreSQL ≤ ${pgDumpMajor} runs them`,
      );
  });

  it('dumps and restores an external database with pg_dump (pg-dump, pg-restore), where the tools fit', async (context) => {
    if (pgDumpMajor < serverMajor) context.skip();
    const dumped = await runBlocks('load-env', 'pg-dump');
    expect(dumped.code, dumped.output).toBe(0);
    await database.pool.query(`DELETE FROM "user" WHERE email = 'owner@shop.example'`);
    const restored = await runBlocks('load-env', 'pg-restore');
    expect(restored.code, restored.output).toBe(0);
    expect((await database.pool.query(`SELECT 1 FROM "user" WHERE email = 'owner@shop.example'`)).rowCount).toBe(1);
  });

  it('lists and collects unused images (collect-orphans-dry-run, collect-orphans)', async () => {
    const dry = await runBlocks('load-env', 'collect-orphans-dry-run');
    expect(dry.code, dry.output).toBe(0);
    expect(dry.output).toMatch(/Dry run: would delete 0 orphaned object\(s\), 0 bytes \(nothing refers to them, older than 72 hours\); nothing was deleted\./);
    const run = await runBlocks('load-env', 'collect-orphans');
    expect(run.code, run.output).toBe(0);
    expect(run.output).toContain('older than 168 hours');
  });

  it('re-seals the single sign-on secrets after an AUTH_SECRET rotation (reseal-secrets)', async () => {
    const { code, output } = await runBlocks('load-env', 'reseal-secrets');
    expect(code, output).toBe(0);
    expect(output).toMatch(/Re-sealed with AUTH_SECRET: 0 single sign-on client secret\(s\), 0 signing key\(s\)/);
    expect(output).toContain('AUTH_SECRET_PREVIOUS can be retired');
  });

  it('answers the health checks of a started server (health)', async () => {
    const server = await spawnServer({ DATABASE_URL: databaseUrl, DATA_DIR: dataDir });
    await waitUntilReady(server);
    serverBase = server.base;
    const { code, output } = await runBlocks('health');
    expect(code, output).toBe(0);
    expect(output).toBe('{"ok":true}{"ok":true,"database":"reachable"}');
  });
  it('names one settings file, the same in the guide, both units and the README (issue 25 item 1)', () => {
    const read = (file: string) => fs.readFileSync(path.join(repoRoot, file), 'utf8');
    const files = ['docs/operations.md', 'README.md', 'deploy/storefront.service', 'deploy/storefront@.service'];
    for (const file of files) {
      expect(read(file), `${file} names the old path`).not.toContain('/etc/storefront.env');
      for (const [named] of read(file).matchAll(/\/etc\/storefront\/[\w%@.-]+\.env/g)) {
        expect(
          [
            '/etc/storefront/storefront.env',
            '/etc/storefront/instance-%i.env',
            '/etc/storefront/instance-N.env',
            '/etc/storefront/instance-1.env',
            '/etc/storefront/instance-2.env',
          ],
          `${file}: ${named}`,
        ).toContain(named);
      }
    }
    const environmentFiles = (file: string) => [...read(file).matchAll(/^EnvironmentFile=(.+)$/gm)].map((match) => match[1]);
    expect(environmentFiles('deploy/storefront.service')).toEqual(['/etc/storefront/storefront.env']);
    expect(environmentFiles('deploy/storefront@.service')).toEqual(['/etc/storefront/storefront.env', '/etc/storefront/instance-%i.env']);
    // The guide's shell loads the file the units read.
    expect(block('load-env')).toContain('. /etc/storefront/storefront.env');
    expect(block('settings-file')).toContain('/etc/storefront/storefront.env');
    // The unit's install notes are the guide's commands, line for line.
    for (const command of block('settings-file').trim().split('\n')) expect(read('deploy/storefront.service')).toContain(`#   ${command.replace(/^sudo /, '')}`);
  });

  it('runs the built CLI, without npm (built-cli)', async () => {
    const { code, output } = await runBlocks('built-cli');
    expect(code, output).toBe(0);
    expect(output).toContain('Usage: npm run cli -- <command>');
  });

  it('starts N instances from the guide as written: each one’s settings win over the shared file (instances, metrics)', async () => {
    const { code, output } = await runAsOperator('instances');
    expect(code, output).toBe(0);
    const unitText = fs.readFileSync(path.join(systemdDir, 'storefront@.service'), 'utf8');
    expect(unitText).toBe(fs.readFileSync(path.join(repoRoot, 'deploy/storefront@.service'), 'utf8'));
    // The units differ only in what makes them a template: the description and the instance's file.
    const differing = (text: string) =>
      text.split('\n').filter((line) => !line.startsWith('#') && !line.startsWith('Description=') && !line.startsWith('EnvironmentFile=') && !line.startsWith('Environment=PORT='));
    expect(differing(unitText)).toEqual(differing(fs.readFileSync(path.join(repoRoot, 'deploy/storefront.service'), 'utf8')));

    const service = unitText.split('\n').filter((line) => /^\w+=/.test(line));
    const values = (key: string) => service.filter((line) => line.startsWith(`${key}=`)).map((line) => line.slice(key.length + 1));
    /** The environment systemd gives instance `n`: Environment= lines, then every EnvironmentFile in order, the last one to set a name winning. */
    const environmentOf = (instance: string) => {
      const env: Record<string, string> = { PATH: '/usr/bin:/bin' };
      for (const pair of values('Environment')) env[pair.slice(0, pair.indexOf('='))] = pair.slice(pair.indexOf('=') + 1);
      for (const file of values('EnvironmentFile')) {
        const local = substitute(file.replaceAll('%i', instance));
        for (const line of fs.readFileSync(local, 'utf8').split('\n')) {
          if (!line.includes('=') || line.startsWith('#')) continue;
          const name = line.slice(0, line.indexOf('='));
          env[name] = line.slice(name.length + 1).replace(/^"(.*)"$/, '$1');
        }
      }
      return env;
    };
    const [executable, ...args] = substitute(values('ExecStart')[0]!).split(/\s+/);
    const instances = ['1', '2'].map((instance) => {
      const env = environmentOf(instance);
      const child = spawn(executable!, args, { cwd: substitute(values('WorkingDirectory')[0]!), env, stdio: ['ignore', 'pipe', 'pipe'] });
      let said = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (said += chunk));
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (said += chunk));
      const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
      return { env, child, exited, said: () => said };
    });
    try {
      // The shared file says PORT=3000 and one DATA_DIR; each instance's own file wins.
      expect(instances.map(({ env }) => env.PORT)).toEqual([String(ports.get('3000')), String(ports.get('3001'))]);
      expect(new Set(instances.map(({ env }) => env.DATA_DIR)).size).toBe(2);
      for (const { env, child, said } of instances) {
        await poll('the instance to be ready', async () => ((await fetch(`http://127.0.0.1:${env.PORT}/readyz`)).status === 200 ? true : undefined), {
          timeoutMs: 60_000,
          stopIf: () => (child.exitCode !== null ? `it exited (${child.exitCode}):\n${said()}` : undefined),
        });
      }
      // The scraper's command of the guide, against instance 1's METRICS_PORT; the public port does not answer it.
      const scraped = await runBlocks('metrics');
      expect(scraped.code, scraped.output).toBe(0);
      expect(scraped.output.trim()).toBe('storefront_checkouts_needing_attention 0');
      expect((await fetch(`http://127.0.0.1:${instances[0]!.env.PORT}/metrics`)).status).toBe(404);
    } finally {
      for (const { child } of instances) child.kill('SIGTERM');
      const codes = await Promise.all(instances.map(({ exited }) => withTimeout(exited, 30_000, 'an instance to stop')));
      expect(codes).toEqual([0, 0]);
    }
  });
});
