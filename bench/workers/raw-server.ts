// The platform's limit: a bare node:http server in its own process answering each path
// with bytes held in memory (the same headers and body the shop sent for it).
import http from 'node:http';

export interface RawRoute {
  status: number;
  headers: Record<string, string>;
  bodyBase64: string;
}

process.once('message', (routes: Record<string, RawRoute>) => {
  const answers = new Map(Object.entries(routes).map(([url, route]) => [url, { ...route, body: Buffer.from(route.bodyBase64, 'base64') }]));
  const server = http.createServer((request, response) => {
    const answer = answers.get(request.url ?? '');
    if (!answer) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(answer.status, { ...answer.headers, 'content-length': answer.body.length });
    response.end(answer.body);
  });
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    process.send!({ port: typeof address === 'object' && address ? address.port : 0 });
  });
});
