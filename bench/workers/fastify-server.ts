// The framework's own limit: Fastify with no plugins or hooks, in its own process,
// answering each path with the bytes (and headers) the shop sent for it.
import Fastify from 'fastify';
import type { RawRoute } from './raw-server.ts';

process.once('message', (routes: Record<string, RawRoute>) => {
  const app = Fastify({ logger: false });
  for (const [url, route] of Object.entries(routes)) {
    const body = Buffer.from(route.bodyBase64, 'base64');
    app.get(url, (_request, reply) => {
      void reply.code(route.status).headers(route.headers).send(body);
    });
  }
  app.listen({ port: 0, host: '127.0.0.1' }).then(
    () => {
      const address = app.server.address();
      process.send!({ port: typeof address === 'object' && address ? address.port : 0 });
    },
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
});
