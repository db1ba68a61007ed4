import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Caller } from '../functions/registry.ts';
import type { LiveHub } from './live.hub.ts';
import type { LiveEvent } from './live.publish.ts';

const HEARTBEAT_MS = 25_000;

/** May this caller see this event? Each client gets only the topics it may see. */
export function mayReceive(caller: Caller | null, event: LiveEvent): boolean {
  switch (event.topic) {
    case 'products':
      return true;
    case 'all-orders':
      return Boolean(caller?.isAdmin);
    case 'profile':
    case 'wallet':
    case 'orders':
      return caller !== null && caller.userId === event.userId;
  }
}

/** `GET /api/live`: Server-Sent Events; the client refetches what an event names. */
export async function liveRoutes(
  app: FastifyInstance,
  options: { hub: LiveHub; resolveCaller: (request: FastifyRequest) => Promise<Caller | null> },
) {
  const open = new Set<() => void>();
  // Streams never finish on their own: end them so shutdown does not wait for them.
  app.addHook('preClose', async () => {
    for (const end of open) end();
  });

  app.get<{ Querystring: { topics?: string } }>('/api/live', async (request, reply) => {
    const caller = await options.resolveCaller(request);
    const wanted = new Set((request.query.topics ?? '').split(',').filter(Boolean));
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    res.write(`retry: 2000\nevent: ready\ndata: ${JSON.stringify({ signedIn: caller !== null, isAdmin: caller?.isAdmin ?? false })}\n\n`);
    const unsubscribe = options.hub.subscribe((event) => {
      if ((wanted.size === 0 || wanted.has(event.topic)) && mayReceive(caller, event)) {
        res.write(`event: ${event.topic}\ndata: ${JSON.stringify({ id: event.id ?? null })}\n\n`);
      }
    });
    const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), HEARTBEAT_MS);
    const end = () => {
      clearInterval(heartbeat);
      unsubscribe();
      open.delete(end);
      res.end();
    };
    open.add(end);
    request.raw.on('close', end);
  });
}
