import react from '@vitejs/plugin-react';
import { defineConfig, type UserConfig } from 'vite';

// In development the API lives on the Fastify server; in production it serves this build itself.
// The Host is passed on unchanged: the server accepts cookie-carrying writes only from the
// origin a request was served on (apps/server/src/http/same-origin.ts), here this dev server's.
const apiServer = { target: 'http://127.0.0.1:3000', changeOrigin: false };

const config: UserConfig = {
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
};

// The server's rendering of public pages (decision 062): `vite build --ssr src/entry-server.tsx`
// makes an ES module for Node. Packages stay in node_modules; our workspace packages
// (TypeScript) go into it. No manifest and no shell chunk: nothing there is downloaded.
const ssrConfig: UserConfig = {
  plugins: [react()],
  ssr: { noExternal: [/^@storefront\//] },
  build: { target: 'node24', manifest: false, copyPublicDir: false },
};

export default defineConfig(({ command, isSsrBuild }) => {
  // A build is always React's production build, even with NODE_ENV=development in the shell
  // (its development bundle is 545 KB instead of 322 KB and behaves differently; issue 13).
  if (command === 'build') process.env.NODE_ENV = 'production';
  return isSsrBuild ? ssrConfig : config;
});
