import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// In development the API lives on the Fastify server; in production it serves this build itself.
// The Host is passed on unchanged: the server accepts cookie-carrying writes only from the
// origin a request was served on (apps/server/src/http/same-origin.ts), here this dev server's.
const apiServer = { target: 'http://127.0.0.1:3000', changeOrigin: false };

export default defineConfig({
  plugins: [react()],
  build: {
    target: 'es2022',
    // Lets the bundle benchmark read which chunks each route loads first.
    manifest: true,
    rolldownOptions: {
      output: {
        // What every first load needs (the entry and all it imports statically) as one
        // file: one request, and 3.5 KB less gzipped than four files (decision 016).
        codeSplitting: {
          groups: [{ name: 'shell', tags: ['$initial'] }],
        },
      },
    },
  },
  server: {
    proxy: {
      '/api': apiServer,
      '/fn': apiServer,
      '/content': apiServer,
      '/healthz': apiServer,
      '/v0': apiServer,
      '/img': apiServer,
      '/pay': apiServer,
      '/payouts': apiServer,
      '/dev': apiServer,
    },
  },
});
