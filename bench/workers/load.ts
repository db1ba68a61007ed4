// A load generator in its own process (forked by bench/lib/load.ts), so autocannon never
// shares an event loop with the server it measures. Gets a LoadSpec, answers a LoadResult.
import autocannon, { type RawRequest } from 'autocannon';
import type { LoadResult, LoadSpec } from '../lib/load.ts';

process.once('message', (spec: LoadSpec) => {
  run(spec).then(
    (result) => process.send!({ ok: true, result }, () => process.exit(0)),
    (error: unknown) => process.send!({ ok: false, error: String(error) }, () => process.exit(1)),
  );
});

async function run(spec: LoadSpec): Promise<LoadResult> {
  let sequence = 0;
  const template = spec.bodyTemplate;
  // A body that must differ per request (a fresh checkout id): __SEQ__ becomes a number
  // unique in this run, so no two requests, on any connection, share it.
  // A header per request, round robin (many buyers, each with their own token).
  const rotation = spec.headerRotation;
  const setupRequest =
    template || rotation
      ? (request: RawRequest) => {
          sequence += 1;
          return {
            ...request,
            ...(template ? { body: template.replaceAll('__SEQ__', String(sequence)) } : {}),
            ...(rotation ? { headers: { ...request.headers, [rotation.name]: rotation.values[sequence % rotation.values.length]! } } : {}),
          };
        }
      : undefined;
  const result = await autocannon({
    url: spec.url,
    connections: spec.connections,
    duration: spec.durationSeconds,
    ...(spec.amount ? { amount: spec.amount } : {}),
    ...(spec.overallRate ? { overallRate: spec.overallRate } : {}),
    timeout: 30,
    ...(spec.warmupSeconds ? { warmup: { connections: spec.connections, duration: spec.warmupSeconds } } : {}),
    requests: [
      {
        method: spec.method ?? 'GET',
        headers: spec.headers ?? {},
        ...(spec.body ? { body: spec.body } : {}),
        ...(setupRequest ? { setupRequest } : {}),
      },
    ],
  });
  const statusCounts: Record<string, number> = {};
  for (const [status, { count }] of Object.entries(result.statusCodeStats ?? {})) statusCounts[status] = count;
  const completed = result['1xx'] + result['2xx'] + result['3xx'] + result['4xx'] + result['5xx'];
  return {
    durationSeconds: result.duration,
    requests: completed,
    ok: result['2xx'] + result['3xx'],
    requestsPerSecond: completed / result.duration,
    okPerSecond: (result['2xx'] + result['3xx']) / result.duration,
    latencyMs: { p50: result.latency.p50, p90: result.latency.p90, p99: result.latency.p99, max: result.latency.max, mean: result.latency.mean },
    errors: result.errors,
    timeouts: result.timeouts,
    statusCounts,
    bytesPerSecond: result.throughput.average,
  };
}
