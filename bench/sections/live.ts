import type { Product } from '@storefront/domain/catalog.ts';
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { AppServer } from '../lib/app-server.ts';
import { ADMIN, callFunction, signIn } from '../lib/client.ts';
import { figure, round, type Figure } from '../lib/figures.ts';
import type { SseCommand, SseReply } from '../workers/sse-clients.ts';

const now = () => performance.timeOrigin + performance.now();

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

function startClients(): { child: ChildProcess; ask(command: SseCommand): Promise<SseReply> } {
  const child = fork(path.join(import.meta.dirname, '../workers/sse-clients.ts'), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return {
    child,
    ask: (command) =>
      new Promise((resolve) => {
        child.once('message', (reply: SseReply) => resolve(reply));
        child.send(command);
      }),
  };
}

/**
 * 1000 open SSE streams (raw HTTP requests in two client processes); an admin edits a
 * product; each stream's arrival time of the `products` event, minus the moment the edit
 * was sent, is one sample. Repeated `rounds` times.
 */
export async function benchLiveFanOut(app: AppServer, product: Product, options: { clients: number; rounds: number }) {
  const token = await signIn(app.base, ADMIN.email, ADMIN.password);
  const groups = [startClients(), startClients()];
  const samples: number[] = [];
  let missing = 0;
  let opened = 0;
  let failedToOpen = 0;
  try {
    const perGroup = Math.ceil(options.clients / groups.length);
    const replies = await Promise.all(groups.map((group) => group.ask({ open: { url: `${app.base}/api/live`, count: perGroup } })));
    for (const reply of replies) {
      if ('error' in reply) throw new Error(reply.error);
      if ('opened' in reply) {
        opened += reply.opened;
        failedToOpen += reply.failed;
      }
    }
    for (let r = 1; r <= options.rounds; r += 1) {
      await new Promise((resolve) => setTimeout(resolve, 300));
      const sentAt = now();
      await callFunction(
        app.base,
        'editBizarreProduct',
        { id: product.id, name: product.name, description: `${product.description} (edit ${r})`, priceCents: product.priceCents, images: product.images },
        token,
      );
      const collected = await Promise.all(groups.map((group) => group.ask({ collect: { round: r, timeoutMs: 10_000 } })));
      for (const reply of collected) {
        if ('error' in reply) throw new Error(reply.error);
        if ('arrivals' in reply) {
          samples.push(...reply.arrivals.map((at) => at - sentAt));
          missing += reply.missing;
        }
      }
    }
  } finally {
    for (const group of groups) {
      if (group.child.connected) group.child.send({ close: true });
      else group.child.kill();
    }
  }
  const sorted = samples.sort((a, b) => a - b);
  const figures: Figure[] = [
    figure('live.clients', 'live: SSE streams open', opened, 'streams', { op: '>=', value: options.clients }, failedToOpen > 0 ? `${failedToOpen} failed to open` : undefined),
    figure('live.p99', `live: product change to arrival, p99 (${opened} streams x ${options.rounds} edits)`, round(percentile(sorted, 99), 1), 'ms', { op: '<', value: 250 }),
    figure('live.p50', 'live: product change to arrival, p50', round(percentile(sorted, 50), 1), 'ms'),
    figure('live.missing', 'live: events that never arrived (10 s)', missing, 'events', { op: '=', value: 0 }),
  ];
  return { figures, samples: { count: sorted.length, p50: percentile(sorted, 50), p90: percentile(sorted, 90), p99: percentile(sorted, 99), max: sorted.at(-1) ?? null } };
}
