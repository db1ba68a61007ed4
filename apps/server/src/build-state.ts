import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * Whether the build this process runs from is older than the sources beside it (issue 25
 * item 7): a production start or CLI call after a `git pull` without `npm run build` would
 * otherwise serve the old code silently. Judged as `npm run build` judges it, by the content
 * hash each output records (scripts/build.mjs, decision 021), never by file times.
 */
export interface BuildPart {
  part: 'server' | 'web';
  dir: string;
}

interface BuildScript {
  sourceHash(part: 'server' | 'web'): string;
}

/** A warning naming the stale parts of the build, or undefined (fresh, or not running from a build). */
export async function staleBuildWarning(root: string, parts: BuildPart[]): Promise<string | undefined> {
  const script = path.join(root, 'scripts/build.mjs');
  // A deploy of the build without its sources has nothing to compare with.
  if (!fs.existsSync(script) || !fs.existsSync(path.join(root, 'apps/server/src'))) return undefined;
  const build = (await import(pathToFileURL(script).href)) as BuildScript;
  const stale: string[] = [];
  for (const { part, dir } of parts) {
    let recorded: { sourceHash?: string; builtAt?: string } | null;
    try {
      recorded = JSON.parse(fs.readFileSync(path.join(dir, '.build.json'), 'utf8')) as { sourceHash?: string; builtAt?: string };
    } catch {
      recorded = null;
    }
    if (!recorded) stale.push(`${path.relative(root, dir)} (no build there)`);
    else if (recorded.sourceHash !== build.sourceHash(part)) stale.push(`${path.relative(root, dir)} (built ${recorded.builtAt ?? 'at an unknown time'})`);
  }
  if (stale.length === 0) return undefined;
  return (
    `This build is older than its sources: ${stale.join(' and ')} was made from other sources than the ones in ${root} now. ` +
    'It runs the old code. Run `npm run build`, then restart.'
  );
}

/** The checkout's root and build folders, when this module runs from the server bundle (apps/server/dist). */
export function runningBuild(): { root: string; parts: BuildPart[] } | undefined {
  const here = import.meta.dirname;
  if (path.basename(here) !== 'dist') return undefined;
  const root = path.resolve(here, '../../..');
  return {
    root,
    parts: [
      { part: 'server', dir: here },
      { part: 'web', dir: path.join(root, 'apps/web/dist') },
    ],
  };
}
