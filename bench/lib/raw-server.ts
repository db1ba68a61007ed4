import { fork } from 'node:child_process';
import path from 'node:path';
import type { RawRoute } from '../workers/raw-server.ts';

// Headers that describe one connection or one moment, not the response.
const HOP_HEADERS = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding', 'content-length']);

/** Fetches each path from the shop once and keeps what it answered, headers and bytes. */
export async function captureRoutes(base: string, paths: string[]): Promise<Record<string, RawRoute>> {
  const routes: Record<string, RawRoute> = {};
  for (const url of paths) {
    // identity: fetch would otherwise ask for br/gzip and unpack it, keeping the header.
    const response = await fetch(`${base}${url}`, { headers: { 'accept-encoding': 'identity' } });
    const headers: Record<string, string> = {};
    response.headers.forEach((value, key) => {
      if (!HOP_HEADERS.has(key)) headers[key] = value;
    });
    routes[url] = { status: response.status, headers, bodyBase64: Buffer.from(await response.arrayBuffer()).toString('base64') };
  }
  return routes;
}

/**
 * Starts a reference server in its own process: `raw` is bare node:http (the platform's
 * limit), `fastify` is Fastify without plugins (the framework's). stop() ends the process.
 */
export async function startReferenceServer(kind: 'raw' | 'fastify', routes: Record<string, RawRoute>): Promise<{ base: string; pid: number; stop(): Promise<void> }> {
  const child = fork(path.join(import.meta.dirname, `../workers/${kind}-server.ts`), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (message: { port: number }) => resolve(message.port));
    child.once('exit', (code) => reject(new Error(`The ${kind} reference server exited (${code}).`)));
    child.send(routes);
  });
  return {
    base: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
