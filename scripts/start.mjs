// `npm start` / `node scripts/start.mjs` (decision 021).
// Production (NODE_ENV=production): serves the build of `npm run build` and nothing else; no
// build, no TypeScript. Without a build it refuses to start and says what to run.
// Development: builds what is missing or out of date (by a content hash of the sources),
// then runs the server from its TypeScript sources.
// Either way the server runs in THIS process (no child): SIGTERM and SIGINT sent to this
// process reach the server itself, which drains its requests and then exits.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const root = path.resolve(import.meta.dirname, '..');
const serverBundle = path.join(root, 'apps/server/dist/main.mjs');
const webIndex = path.join(root, 'apps/web/dist/index.html');

async function start() {
  if (process.env.NODE_ENV === 'production') {
    const missing = [serverBundle, webIndex].filter((file) => !fs.existsSync(file)).map((file) => path.relative(root, file));
    if (missing.length > 0) {
      console.error(
        `There is no production build (${missing.join(', ')} missing). Run \`npm run build\` first ` +
          '(with the development packages installed), then start again; production does not build on start.',
      );
      process.exit(1);
    }
    await import(pathToFileURL(serverBundle).href);
    return;
  }
  const { build } = await import('./build.mjs');
  // The server runs from its sources here: only the web app needs a build.
  await build({ ifStale: true, parts: ['web'] });
  const { register } = await import('tsx/esm/api');
  register();
  await import(pathToFileURL(path.join(root, 'apps/server/src/main.ts')).href);
}

if (process.argv[1] && path.resolve(process.argv[1]) === import.meta.filename) {
  start().catch((error) => {
    console.error('The storefront could not start:', error);
    process.exit(1);
  });
}
