// One read, alone, for profiling and for the inner loop of making it faster (issue 38):
// starts the real server as the bench does (BENCH_PROFILE_DIR writes its CPU profile) and bare
// Fastify with the same bytes, and loads each in turns, without warm-up (the first round is
// the warm-up); prints shop / bare Fastify per round, in req/s and in CPU time a request.
//   BENCH_PROFILE_DIR=/tmp/prof node --import tsx bench/profile-route.ts [list|product|page] [--rounds=3] [--seconds=5]
// then: node --import tsx bench/profile-summary.ts /tmp/prof/<file>.cpuprofile
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Product } from '@storefront/domain/catalog.ts';
import { startAppServer } from './lib/app-server.ts';
import { runLoad } from './lib/load.ts';
import { captureRoutes, startReferenceServer } from './lib/raw-server.ts';
import { HTTP_CONNECTIONS } from './sections/http-reads.ts';

const args = process.argv.slice(2);
const which = args.find((arg) => !arg.startsWith('--')) ?? 'product';
const option = (name: string, fallback: number) => Number(args.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback);
const rounds = option('rounds', 3);
const seconds = option('seconds', 5);

/** CPU time (user + system) a process has used, in microseconds (Linux /proc; 100 ticks a second). */
function cpuMicros(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

const app = await startAppServer(path.join(os.tmpdir(), 'storefront-profile-route.log'));
try {
  const { products } = (await (await fetch(`${app.base}/api/products`)).json()) as { products: Product[] };
  const id = encodeURIComponent(products[0]!.id);
  // page: the server-written product page (decision 058), asked for as browsers ask.
  const url = which === 'list' ? '/api/products' : which === 'page' ? `/product/${id}` : `/api/products/${id}`;
  const headers: Record<string, string> = which === 'page' ? { 'accept-encoding': 'gzip, deflate, br' } : {};
  const routes = await captureRoutes(app.base, [url]);
  const bare = await startReferenceServer('fastify', routes);
  try {
    const ratios: number[] = [];
    const cpu: number[] = [];
    for (let round = 0; round < rounds; round += 1) {
      // CPU per request as well as req/s: on a shared machine the time a server waits for a core
      // moves req/s, while the CPU each request costs it carries over.
      const load = async (base: string, pid: number) => {
        const before = cpuMicros(pid);
        const result = await runLoad({ url: `${base}${url}`, connections: HTTP_CONNECTIONS, durationSeconds: seconds, headers });
        return { ...result, cpuPerRequest: (cpuMicros(pid) - before) / result.requests };
      };
      const shop = await load(app.base, app.pid);
      const fastify = await load(bare.base, bare.pid);
      ratios.push(shop.okPerSecond / fastify.okPerSecond);
      cpu.push(fastify.cpuPerRequest / shop.cpuPerRequest);
      console.log(
        `${url} round ${round + 1}: shop ${Math.round(shop.okPerSecond)} req/s (${shop.cpuPerRequest.toFixed(1)} µs CPU a request), bare Fastify ${Math.round(fastify.okPerSecond)} req/s (${fastify.cpuPerRequest.toFixed(1)} µs), ratio ${ratios.at(-1)!.toFixed(2)}, CPU ratio ${cpu.at(-1)!.toFixed(2)}`,
      );
    }
    console.log(
      `shop / bare Fastify, ${which}: req/s ${ratios.map((ratio) => ratio.toFixed(2)).join(', ')}; bare CPU / shop CPU a request ${cpu.map((ratio) => ratio.toFixed(2)).join(', ')}`,
    );
  } finally {
    await bare.stop();
  }
} finally {
  await app.stop();
}
