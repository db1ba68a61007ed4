// `npm run cli -- <command>` (issue 25 item 7, decision 040).
// Production (NODE_ENV=production): runs the build of `npm run build`
// (apps/server/dist/cli.mjs) with no TypeScript compiler; without a build it refuses and
// says what to run, as `npm start` does. Development: runs the TypeScript sources through
// tsx, so a change needs no build.
// In production the built CLI can also be run directly, without npm:
//   node_modules/node/bin/node apps/server/dist/cli.mjs <command>
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const root = path.resolve(import.meta.dirname, '..');
const builtCli = path.join(root, 'apps/server/dist/cli.mjs');

async function load() {
  if (process.env.NODE_ENV === 'production') {
    if (!fs.existsSync(builtCli)) {
      console.error(
        `There is no production build (${path.relative(root, builtCli)} missing). Run \`npm run build\` first ` +
          '(with the development packages installed); in production the CLI runs the build, never the TypeScript sources.',
      );
      process.exit(1);
    }
    return import(pathToFileURL(builtCli).href);
  }
  const { register } = await import('tsx/esm/api');
  register();
  return import(pathToFileURL(path.join(root, 'apps/server/src/cli.ts')).href);
}

const cli = await load();
await cli.runCli(process.argv.slice(2)).catch(cli.failCli);
