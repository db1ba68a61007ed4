// Opens many raw HTTP Server-Sent Events streams to GET /api/live and notes, for each
// stream, when each `products` event arrived (wall-clock ms, comparable across processes).
import http from 'node:http';
import { performance } from 'node:perf_hooks';

export type SseCommand = { open: { url: string; count: number } } | { collect: { round: number; timeoutMs: number } } | { close: true };
export type SseReply = { opened: number; failed: number } | { arrivals: number[]; missing: number } | { error: string };

const now = () => performance.timeOrigin + performance.now();
/** Per stream: arrival time of its 1st, 2nd, ... `products` event. */
const streams: number[][] = [];
const requests: http.ClientRequest[] = [];

function openStream(url: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const arrivals: number[] = [];
    let ready = false;
    let buffer = '';
    const request = http.get(url, { agent: false, headers: { accept: 'text/event-stream' } }, (response) => {
      if (response.statusCode !== 200) {
        reject(new Error(`GET /api/live answered ${response.statusCode}`));
        response.resume();
        return;
      }
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        const at = now();
        buffer += chunk;
        let split: number;
        while ((split = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, split);
          buffer = buffer.slice(split + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1];
          if (event === 'ready' && !ready) {
            ready = true;
            streams.push(arrivals);
            resolve();
          } else if (event === 'products') {
            arrivals.push(at);
          }
        }
      });
    });
    request.on('error', (error) => {
      if (!ready) reject(error);
    });
    requests.push(request);
  });
}

async function collect(round: number, timeoutMs: number): Promise<SseReply> {
  const deadline = Date.now() + timeoutMs;
  while (streams.some((arrivals) => arrivals.length < round) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const arrivals = streams.filter((a) => a.length >= round).map((a) => a[round - 1]!);
  return { arrivals, missing: streams.length - arrivals.length };
}

process.on('message', (command: SseCommand) => {
  const reply = (message: SseReply) => process.send!(message);
  if ('open' in command) {
    const { url, count } = command.open;
    // Opened in waves of 100, as a crowd arriving rather than one burst of SYNs.
    void (async () => {
      let failed = 0;
      for (let start = 0; start < count; start += 100) {
        const wave = Array.from({ length: Math.min(100, count - start) }, () => openStream(url));
        failed += (await Promise.allSettled(wave)).filter((r) => r.status === 'rejected').length;
      }
      reply({ opened: streams.length, failed });
    })();
  } else if ('collect' in command) {
    void collect(command.collect.round, command.collect.timeoutMs).then(reply, (error: unknown) => reply({ error: String(error) }));
  } else {
    for (const request of requests) request.destroy();
    process.exit(0);
  }
});
