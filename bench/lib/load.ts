import { fork } from 'node:child_process';
import path from 'node:path';

/** One autocannon run, described so it can be sent to a worker process. */
export interface LoadSpec {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** A header that changes with each request, round robin over these values (e.g. many buyers' tokens). */
  headerRotation?: { name: string; values: string[] };
  /** A body in which every `__SEQ__` becomes a number unique to the request. */
  bodyTemplate?: string;
  connections: number;
  durationSeconds: number;
  /** Stop after this many requests instead (a burst). */
  amount?: number;
  /** Runs first, not counted: JIT, connection pools and caches warm up. */
  warmupSeconds?: number;
  /** Requests per second over all connections (a steady load), instead of as fast as possible. */
  overallRate?: number;
}

export interface LoadResult {
  durationSeconds: number;
  /** Completed responses, whatever their status. */
  requests: number;
  /** 2xx and 3xx responses. */
  ok: number;
  requestsPerSecond: number;
  okPerSecond: number;
  latencyMs: { p50: number; p90: number; p99: number; max: number; mean: number };
  errors: number;
  timeouts: number;
  statusCounts: Record<string, number>;
  bytesPerSecond: number;
}

const workerPath = path.join(import.meta.dirname, '../workers/load.ts');

/** Runs autocannon in a child process (never in this one) and returns its figures. */
export function runLoad(spec: LoadSpec): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const child = fork(workerPath, [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let settled = false;
    child.once('message', (message: { ok: true; result: LoadResult } | { ok: false; error: string }) => {
      settled = true;
      if (message.ok) resolve(message.result);
      else reject(new Error(`autocannon failed: ${message.error}`));
    });
    child.once('exit', (code) => {
      if (!settled) reject(new Error(`The load worker exited (${code}) without a result.`));
    });
    child.send(spec);
  });
}
