// One read, alone, for profiling and for the inner loop of making it faster (issue 38):
// starts the real server as the bench does (BENCH_PROFILE_DIR writes its CPU profile) and bare
// Fastify with the same bytes, and loads each in turns; prints shop / bare Fastify per round.
//   BENCH_PROFILE_DIR=/tmp/prof node --import tsx bench/profile-route.ts [list|product] [--rounds=3] [--seconds=5]
// then: node --import tsx bench/profile-summary.ts /tmp/prof/<file>.cpuprofile
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

const app = await startAppServer(path.join(os.tmpdir(), 'storefront-profile-route.log'));
try {
  const { products } = (await (await fetch(`${app.base}/api/products`)).json()) as { products: Product[] };
  const url = which === 'list' ? '/api/products' : `/api/products/${encodeURIComponent(products[0]!.id)}`;
  const routes = await captureRoutes(app.base, [url]);
  const bare = await startReferenceServer('fastify', routes);
  try {
    const ratios: number[] = [];
    for (let round = 0; round < rounds; round += 1) {
      const load = (base: string) => runLoad({ url: `${base}${url}`, connections: HTTP_CONNECTIONS, durationSeconds: seconds, warmupSeconds: 1 });
      const shop = await load(app.base);
      const fastify = await load(bare.base);
      ratios.push(shop.okPerSecond / fastify.okPerSecond);
      console.log(
        `${url} round ${round + 1}: shop ${Math.round(shop.okPerSecond)} req/s, bare Fastify ${Math.round(fastify.okPerSecond)} req/s, ratio ${ratios.at(-1)!.toFixed(2)}`,
      );
    }
    console.log(`shop / bare Fastify, ${which}: ${ratios.map((ratio) => ratio.toFixed(2)).join(', ')}`);
  } finally {
    await bare.stop();
  }
} finally {
  await app.stop();
}
