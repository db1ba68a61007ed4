import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A small HTTP proxy for storage tests that stands for a bad network: per request it
 * forwards, answers with an error itself, cuts the connection part-way through the
 * body, or holds the request until told (or until the client gives up).
 */
export type FaultAction = { kind: 'pass' } | { kind: 'respond'; status: number } | { kind: 'drop-after'; bytes: number } | { kind: 'hold'; until: Promise<void> };

export interface ProxiedRequest {
  index: number;
  method: string;
  url: string;
  /** X-Goog-Upload-Command and -Offset, when present. */
  command: string | undefined;
  offset: number | undefined;
  action: FaultAction['kind'] | undefined;
  /** What the client got: an HTTP status, 'dropped', or 'client-gone'. */
  outcome: number | 'dropped' | 'client-gone' | undefined;
}

export interface FaultProxy {
  url: string;
  requests: ProxiedRequest[];
  close(): Promise<void>;
}

type Plan = (request: ProxiedRequest) => FaultAction | undefined;

export async function startFaultProxy(target: string, plan: Plan = () => undefined): Promise<FaultProxy> {
  const upstreamUrl = new URL(target);
  const requests: ProxiedRequest[] = [];

  const server = http.createServer((req, res) => {
    const header = (name: string) => (typeof req.headers[name] === 'string' ? req.headers[name] : undefined);
    const offset = header('x-goog-upload-offset');
    const entry: ProxiedRequest = {
      index: requests.length,
      method: req.method ?? 'GET',
      url: req.url ?? '/',
      command: header('x-goog-upload-command'),
      offset: offset === undefined ? undefined : Number(offset),
      action: undefined,
      outcome: undefined,
    };
    requests.push(entry);
    const action = plan(entry) ?? { kind: 'pass' };
    entry.action = action.kind;

    if (action.kind === 'respond') {
      // Read the whole body first, so the client is not cut off while still sending.
      req.resume();
      req.on('end', () => {
        entry.outcome = action.status;
        res.writeHead(action.status, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { code: action.status, message: 'injected fault' } }));
      });
      return;
    }

    const forward = () => {
      const upstream = http.request({
        host: upstreamUrl.hostname,
        port: upstreamUrl.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: upstreamUrl.host },
      });
      upstream.on('response', (answer) => {
        entry.outcome = answer.statusCode ?? 0;
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      upstream.on('error', () => res.socket?.destroy());
      if (action.kind !== 'drop-after') {
        req.pipe(upstream);
        return;
      }
      let sent = 0;
      req.on('data', (chunk: Buffer) => {
        if (entry.outcome === 'dropped') return;
        const room = action.bytes - sent;
        if (chunk.length < room) {
          sent += chunk.length;
          upstream.write(chunk);
          return;
        }
        // Deliver exactly `bytes` to the server, then cut both connections.
        entry.outcome = 'dropped';
        upstream.write(chunk.subarray(0, room), () => {
          upstream.destroy();
          res.socket?.destroy();
        });
      });
      req.on('end', () => {
        if (entry.outcome !== 'dropped') upstream.end();
      });
    };

    if (action.kind === 'hold') {
      let gone = false;
      res.on('close', () => {
        if (!res.writableFinished) {
          gone = true;
          entry.outcome ??= 'client-gone';
        }
      });
      req.pause();
      void action.until.then(() => {
        if (!gone) forward();
      });
      return;
    }
    forward();
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
