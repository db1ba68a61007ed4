import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { SMTPServer } from 'smtp-server';
import { freePort, startEmbeddedPostgres, type EmbeddedDatabase } from '../../apps/server/src/db/embedded.ts';
import { runMigrations } from '../../apps/server/src/db/migrate.ts';
import { root } from './app-server.ts';

/**
 * Several server instances as production runs them (`NODE_ENV=production node scripts/start.mjs`,
 * from the build) on one PostgreSQL, behind Debian's nginx running the shipped deploy/nginx.conf
 * and deploy/nginx-site.conf with this run's ports, paths and limits (NGINX_LIMITS). Used by the
 * drop section. Every process's CPU time can be read, for per-instance figures.
 */
export const NGINX = process.env.NGINX_PATH ?? '/usr/sbin/nginx';

/**
 * What the shipped nginx.conf is changed to for a crowd of live streams on this machine. Each
 * stream takes two connections of a worker (the fan's and the one to an instance); a process
 * here may open at most 20,000 files (the hard limit of this machine: `ulimit -Hn`), so four
 * workers, each at most 16,000 connections, and `reuseport` to spread the fans among them.
 */
export const NGINX_LIMITS = { workerProcesses: 4, workerConnections: 16_000, workerRlimitNofile: 20_000 } as const;

export interface Instance {
  port: number;
  child: ChildProcess;
}

export interface Cluster {
  /** http://127.0.0.1:<nginx port> */
  base: string;
  host: string;
  port: number;
  databaseUrl: string;
  authSecret: string;
  instances: Instance[];
  accessLog: string;
  /** CPU seconds (user + system) used so far by: each instance, PostgreSQL (all its processes), nginx (all workers). */
  cpu(): { instances: number[]; postgres: number; nginx: number };
  /** Resident memory now, MiB: each instance, and nginx's workers together. */
  memory(): { instances: number[]; nginx: number };
  stop(): Promise<void>;
}

const CLOCK_TICKS = 100;

/** utime + stime (+ the children's that were waited for) of a process, in seconds; 0 once gone. */
function processCpu(pid: number, withChildren = false): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields after the name, from 3 (state): utime is 14, stime 15, cutime 16, cstime 17.
    const ticks = Number(fields[11]) + Number(fields[12]) + (withChildren ? Number(fields[13]) + Number(fields[14]) : 0);
    return ticks / CLOCK_TICKS;
  } catch {
    return 0;
  }
}

/** Resident memory of a process, MiB; 0 once gone. */
function processRss(pid: number): number {
  try {
    const kib = /^VmRSS:\s+(\d+) kB$/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return Math.round(Number(kib ?? 0) / 102.4) / 10;
  } catch {
    return 0;
  }
}

function childrenOf(parent: number): number[] {
  const found: number[] = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === parent) found.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** A process and its live children; exited children count through the parent's cutime. */
function treeCpu(pid: number): number {
  return processCpu(pid, true) + childrenOf(pid).reduce((sum, child) => sum + processCpu(child), 0);
}

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs: number, stopIf?: () => string | undefined) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    const reason = stopIf?.();
    if (reason) throw new Error(`Gave up waiting for ${what}: ${reason}`);
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs / 1000} s waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

function replaceIn(text: string, file: string, from: string | RegExp, to: string): string {
  const next = typeof from === 'string' ? text.replaceAll(from, to) : text.replace(from, to);
  if (next === text) throw new Error(`${file} no longer contains ${String(from)}: update bench/lib/cluster.ts`);
  return next;
}

/**
 * The shipped files with this run's values. The fans speak plain HTTP/1.1 to nginx: TLS for
 * 20,000 connections would spend this 2-core machine's CPU on handshakes the instances never
 * see (TLS ends at nginx in production too); everything behind the listener is the shipped site.
 */
/** One port free on 127.0.0.1. */
function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * nginx's two ports (TLS's stand-in and the plain one after it), below Linux's ephemeral range
 * (32768-60999): a port the kernel hands out for outgoing connections (the fans' 20,000, the
 * instances' own) was taken between choosing it and nginx binding it, once, 17 s later.
 */
async function listenPorts(): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const port = 20_000 + Math.floor(Math.random() * 10_000);
    if ((await bindable(port)) && (await bindable(port + 1))) return port;
  }
  throw new Error('No two free ports next to each other in 20000-30000');
}

function writeNginxConfig(dir: string, listen: number, upstreams: number[]): string {
  const siteFile = 'deploy/nginx-site.conf';
  let site = fs.readFileSync(path.join(root, siteFile), 'utf8');
  site = replaceIn(site, siteFile, 'access_log /var/log/nginx/storefront.access.log storefront;', `access_log ${dir}/access.log storefront;`);
  site = replaceIn(site, siteFile, /^\s*server 127\.0\.0\.1:3000 (.*)\n\s*server 127\.0\.0\.1:3001 .*\n/m, upstreams.map((port) => `    server 127.0.0.1:${port} $1\n`).join(''));
  site = replaceIn(site, siteFile, 'listen 80;', `listen 127.0.0.1:${listen + 1};`);
  site = replaceIn(site, siteFile, 'listen 443 ssl http2;', `listen 127.0.0.1:${listen} reuseport backlog=4096;`);
  site = replaceIn(site, siteFile, /^\s*ssl_[a-z_]+ .*\n/gm, '');
  const sitePath = path.join(dir, 'site.conf');
  fs.writeFileSync(sitePath, site);

  const wholeFile = 'deploy/nginx.conf';
  let whole = fs.readFileSync(path.join(root, wholeFile), 'utf8');
  whole = replaceIn(whole, wholeFile, /^user www-data;$/m, '');
  whole = replaceIn(whole, wholeFile, 'worker_processes auto;', `worker_processes ${NGINX_LIMITS.workerProcesses};`);
  whole = replaceIn(whole, wholeFile, /^worker_rlimit_nofile \d+;$/m, `worker_rlimit_nofile ${NGINX_LIMITS.workerRlimitNofile};`);
  whole = replaceIn(whole, wholeFile, 'pid /run/nginx.pid;', `pid ${dir}/nginx.pid;`);
  whole = replaceIn(whole, wholeFile, 'error_log /var/log/nginx/error.log warn;', `error_log ${dir}/error.log warn;`);
  whole = replaceIn(whole, wholeFile, /worker_connections \d+;/, `worker_connections ${NGINX_LIMITS.workerConnections};`);
  whole = replaceIn(whole, wholeFile, 'include /etc/nginx/sites-available/storefront;', `include ${sitePath};`);
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((kind) => `    ${kind}_temp_path ${dir}/${kind};`).join('\n');
  whole = replaceIn(whole, wholeFile, /^http \{$/m, `http {\n${temp}`);
  const confPath = path.join(dir, 'nginx.conf');
  fs.writeFileSync(confPath, whole);
  return confPath;
}

/** Starts PostgreSQL (durable settings, as production), migrates, then `count` instances and nginx. */
export async function startCluster(options: { count: number; env: Record<string, string>; log: (line: string) => void }): Promise<Cluster> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'storefront-bench-drop-'));
  fs.chmodSync(dir, 0o755);
  const stops: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const step of stops.reverse()) await step().catch(() => undefined);
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    let database: EmbeddedDatabase = await startEmbeddedPostgres({ dataDir: path.join(dir, 'db') });
    const pool = new pg.Pool({ connectionString: database.connectionString, max: 2 });
    // The restart below may end a connection the pool has not closed yet: nothing is lost.
    pool.on('error', () => undefined);
    await runMigrations(pool);
    // Commit times, so the bench can measure from a transaction's commit (needs a restart).
    await pool.query('ALTER SYSTEM SET track_commit_timestamp = on');
    await pool.end();
    await database.stop();
    database = await startEmbeddedPostgres({ dataDir: path.join(dir, 'db') });
    const started = database;
    stops.push(() => started.stop());

    // Receipts go out through the mail queue as in production: a peer that accepts and drops them.
    const smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onData: (stream, _session, done) => stream.resume().on('end', () => done()),
    });
    // An instance stopped while it sends resets its connection: the sink's error, not the bench's.
    smtp.on('error', () => undefined);
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
    stops.push(() => new Promise<void>((resolve) => smtp.close(() => resolve())));
    const smtpAddress = smtp.server.address();
    const smtpPort = typeof smtpAddress === 'object' && smtpAddress ? smtpAddress.port : 0;

    const listen = await listenPorts();
    const base = `http://127.0.0.1:${listen}`;
    const authSecret = `bench-drop-secret-${Date.now()}-`.repeat(2);
    const ports = await Promise.all(Array.from({ length: options.count }, () => freePort()));
    const logTail = (index: number) => fs.readFileSync(path.join(dir, `instance-${index + 1}.log`), 'utf8').slice(-2000);
    const instances: Instance[] = [];
    // One after another, as a rolling deploy starts them: each is ready before the next starts.
    for (const [index, port] of ports.entries()) {
      const dataDir = path.join(dir, `instance-${index + 1}`);
      fs.mkdirSync(dataDir);
      const out = fs.openSync(path.join(dir, `instance-${index + 1}.log`), 'w');
      const child = spawn(process.execPath, ['scripts/start.mjs'], {
        cwd: root,
        stdio: ['ignore', out, out],
        env: {
          ...process.env,
          NODE_ENV: 'production',
          HOST: '127.0.0.1',
          PORT: String(port),
          DATA_DIR: dataDir,
          DATABASE_URL: database.connectionString,
          PUBLIC_URL: base,
          AUTH_SECRET: authSecret,
          SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
          TRUSTED_PROXIES: '127.0.0.1',
          PAYMENT_PROVIDER: 'local',
          ALLOW_TEST_PAYMENTS: '1',
          LOG_LEVEL: 'warn',
          ...options.env,
        },
      });
      stops.push(async () => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
        await exited;
        clearTimeout(timer);
      });
      instances.push({ port, child });
      await waitFor(
        `instance ${index + 1} to be ready`,
        async () => (await fetch(`http://127.0.0.1:${port}/readyz`)).ok,
        120_000,
        () => (child.exitCode !== null ? `it exited (${child.exitCode}):\n${logTail(index)}` : undefined),
      );
    }
    options.log(`${options.count} instances ready (production build, one PostgreSQL)`);

    const nginxDir = path.join(dir, 'nginx');
    fs.mkdirSync(nginxDir);
    const confFile = writeNginxConfig(nginxDir, listen, ports);
    const nginx = spawn(NGINX, ['-p', nginxDir, '-c', confFile, '-g', 'daemon off;'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let nginxOutput = '';
    nginx.stderr!.setEncoding('utf8').on('data', (chunk: string) => (nginxOutput += chunk));
    stops.push(async () => {
      if (nginx.exitCode !== null) return;
      const exited = new Promise((resolve) => nginx.once('exit', resolve));
      nginx.kill('SIGQUIT');
      const timer = setTimeout(() => nginx.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    });
    await waitFor(
      'nginx to answer',
      async () => (await fetch(`${base}/healthz`)).ok,
      30_000,
      () => (nginx.exitCode !== null ? `nginx exited (${nginx.exitCode}): ${nginxOutput}` : undefined),
    );
    const postmaster = Number(fs.readFileSync(path.join(dir, 'db/pg/postmaster.pid'), 'utf8').split('\n')[0]);
    return {
      base,
      host: '127.0.0.1',
      port: listen,
      databaseUrl: database.connectionString,
      authSecret,
      instances,
      accessLog: path.join(nginxDir, 'access.log'),
      cpu: () => ({
        instances: instances.map((instance) => processCpu(instance.child.pid!)),
        postgres: treeCpu(postmaster),
        nginx: treeCpu(nginx.pid!),
      }),
      memory: () => ({
        instances: instances.map((instance) => processRss(instance.child.pid!)),
        nginx: childrenOf(nginx.pid!).reduce((sum, pid) => sum + processRss(pid), 0),
      }),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
