import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { staleBuildWarning, type BuildPart } from './build-state.ts';

/**
 * A production start on a build older than its sources says so (issue 25 item 7): judged by
 * the content hash scripts/build.mjs records, in a small checkout of its own (a copy of the
 * build script and one source file), so this checkout's build is left alone.
 */
const repoRoot = path.resolve(import.meta.dirname, '../../..');
let root: string;
let parts: BuildPart[];
const source = () => path.join(root, 'apps/server/src/main.ts');

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'storefront-build-state-'));
  fs.mkdirSync(path.join(root, 'scripts'));
  fs.copyFileSync(path.join(repoRoot, 'scripts/build.mjs'), path.join(root, 'scripts/build.mjs'));
  fs.mkdirSync(path.dirname(source()), { recursive: true });
  fs.writeFileSync(source(), 'console.log("v1");\n');
  const dist = path.join(root, 'apps/server/dist');
  fs.mkdirSync(dist, { recursive: true });
  // What `npm run build` records for these sources.
  const build = (await import(pathToFileURL(path.join(root, 'scripts/build.mjs')).href)) as { sourceHash(part: string): string };
  fs.writeFileSync(path.join(dist, '.build.json'), JSON.stringify({ sourceHash: build.sourceHash('server'), builtAt: '2026-11-27T05:00:00.000Z' }));
  parts = [{ part: 'server', dir: dist }];
});

afterAll(() => {
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

describe('staleBuildWarning', () => {
  it('says nothing when the build was made from the sources there', async () => {
    expect(await staleBuildWarning(root, parts)).toBeUndefined();
  });

  it('says nothing for a file only touched (content, not time)', async () => {
    const later = new Date(Date.now() + 60_000);
    fs.utimesSync(source(), later, later);
    expect(await staleBuildWarning(root, parts)).toBeUndefined();
  });

  it('names the stale build, when it was built, and what to run, once a source changed', async () => {
    fs.writeFileSync(source(), 'console.log("v2");\n');
    const warning = await staleBuildWarning(root, parts);
    expect(warning).toContain('This build is older than its sources: apps/server/dist (built 2026-11-27T05:00:00.000Z)');
    expect(warning).toContain('Run `npm run build`, then restart.');
  });

  it('says nothing for a deploy of the build without its sources', async () => {
    fs.rmSync(path.join(root, 'apps/server/src'), { recursive: true });
    expect(await staleBuildWarning(root, parts)).toBeUndefined();
  });
});
