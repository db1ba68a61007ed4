import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { freePort } from '../../src/db/embedded.ts';
import { newTestDataDir } from '../temp-data-dirs.ts';

/**
 * Real server and CLI processes for the reliability tests, started the way `npm start`
 * and `npm run cli` start them (the patterns of test/start.test.ts).
 */
export const repoRoot = path.resolve(import.meta.dirname, '../../../..');

export interface ServerProcess {
  child: ChildProcess;
  port: number;
  base: string;
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** The environment of a child: this run's settings never leak into it. */
export function childEnv(settings: Record<string, string>): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.DATABASE_URL;
  delete env.TEST_DATABASE_URL;
  delete env.NODE_OPTIONS;
  delete env.DATA_DIR;
  // Vitest sets TEST=true, which libraries (Better Auth) take as "skip production checks".
  for (const name of Object.keys(env)) if (name === 'TEST' || name.startsWith('VITEST')) delete env[name];
  // Load from one address (127.0.0.1): the per-minute checkout and quote limits (issue 40 item 7) are high unless set.
  const limits = { CHECKOUT_RATE_LIMIT: '100000', CHECKOUT_ADDRESS_RATE_LIMIT: '100000', QUOTE_RATE_LIMIT: '100000', QUOTE_ADDRESS_RATE_LIMIT: '100000' };
  return { ...env, LOG_LEVEL: 'silent', ...limits, ...settings };
}

const started: ServerProcess[] = [];

/** `root`: the checkout to run (another version's tree in the rolling-upgrade test); this one by default. */
export async function spawnServer(settings: Record<string, string>, port?: number, root = repoRoot): Promise<ServerProcess> {
  const listenPort = port ?? (await freePort());
  const child = spawn(process.execPath, ['--import', 'tsx', 'apps/server/src/main.ts'], {
    cwd: root,
    // A DATA_DIR of its own unless the test names one: a development server keeps its secret
    // there, and one left in the checkout's ./data was read by later CLI tests as the shop's.
    env: childEnv({ NODE_ENV: 'development', HOST: '127.0.0.1', PORT: String(listenPort), DATA_DIR: newTestDataDir('server'), ...settings }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  const server = { child, port: listenPort, base: `http://127.0.0.1:${listenPort}`, output: () => output, exited };
  started.push(server);
  return server;
}

/** Polls until `check` gives a value; gives up at the deadline or when `stopIf` names a reason. */
export async function poll<T>(
  what: string,
  check: () => Promise<T | undefined>,
  { timeoutMs, stopIf, intervalMs = 100 }: { timeoutMs: number; stopIf?: () => string | undefined; intervalMs?: number },
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check().catch(() => undefined);
    if (value !== undefined) return value;
    const reason = stopIf?.();
    if (reason) throw new Error(`Gave up waiting for ${what}: ${reason}`);
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

const hasExited = (server: ServerProcess) => server.child.exitCode !== null || server.child.signalCode !== null;

export async function waitUntilReady(server: ServerProcess): Promise<void> {
  await poll('the server to be ready', async () => ((await fetch(`${server.base}/readyz`)).status === 200 ? true : undefined), {
    timeoutMs: 120_000,
    stopIf: () => (hasExited(server) ? `the server exited (${server.child.exitCode ?? server.child.signalCode}):\n${server.output()}` : undefined),
  });
}

export async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`Timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** SIGTERM and wait; SIGKILL if it does not stop in time. */
export async function stopServer(server: ServerProcess): Promise<void> {
  if (hasExited(server)) return;
  server.child.kill('SIGTERM');
  await withTimeout(server.exited, 40_000, 'the server to stop').catch(() => {
    server.child.kill('SIGKILL');
    return server.exited;
  });
}

/** Stops every server a test file started (for afterAll). */
export async function stopAllServers(): Promise<void> {
  await Promise.all(started.splice(0).map(stopServer));
}

/** `npm run cli -- <args>` as a child process; resolves with its exit code and output. */
export async function runCli(args: string[], settings: Record<string, string>, root = repoRoot): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'apps/server/src/cli.ts', ...args], {
    cwd: root,
    env: childEnv(settings),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const code = await withTimeout(new Promise<number | null>((resolve) => child.on('exit', resolve)), 120_000, `cli ${args.join(' ')}`);
  return { code, output };
}
