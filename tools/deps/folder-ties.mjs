// Folder pairs that import each other (issue 34, decision 065): on the server's import graph,
// type-only imports included, each pair of folders under apps/server/src (a file at its root
// counts as its own) where each imports the other. Every such pair must be a domain tie listed
// with its reason in dependency-cruiser.config.cjs, none may be with the shell, and there may be at
// most MAX_FOLDER_TIES. `node tools/deps/folder-ties.mjs` prints them and fails on a breach.
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { cruise } from 'dependency-cruiser';

const root = path.resolve(import.meta.dirname, '../..');
const config = createRequire(import.meta.url)(path.join(root, 'dependency-cruiser.config.cjs'));

/** The folder (or root file) of a path under apps/server/src; null outside it. */
function unitOf(file) {
  const match = /^apps\/server\/src\/([^/]+)(\/|$)/.exec(file);
  return match ? match[1] : null;
}

/** The pairs `a-b` (a < b) of folders that import each other, with one import each way. */
export async function folderTies(baseDir = root) {
  const { output } = await cruise(['apps/server/src'], { ...config.options, baseDir });
  const edges = new Map();
  for (const module of output.modules) {
    const from = unitOf(module.source);
    if (!from) continue;
    for (const dependency of module.dependencies) {
      const to = dependency.couldNotResolve ? null : unitOf(dependency.resolved);
      if (!to || to === from || edges.has(`${from}>${to}`)) continue;
      edges.set(`${from}>${to}`, `${module.source} -> ${dependency.resolved}`);
    }
  }
  const ties = [];
  for (const [edge, example] of edges) {
    const [a, b] = edge.split('>');
    if (a < b && edges.has(`${b}>${a}`)) ties.push({ pair: `${a}-${b}`, imports: [example, edges.get(`${b}>${a}`)] });
  }
  return ties.sort((x, y) => x.pair.localeCompare(y.pair));
}

/** What is wrong with these ties under the config's rules: an empty list when nothing. */
export function tieProblems(ties) {
  const shell = new RegExp(config.SHELL);
  const isShell = (unit) => shell.test(`apps/server/src/${unit}/`) || shell.test(`apps/server/src/${unit}`);
  const problems = [];
  for (const { pair, imports } of ties) {
    if (pair.split('-').some(isShell)) problems.push(`${pair}: the shell imports no area (${imports.join('; ')})`);
    else if (!(pair in config.FOLDER_TIES)) problems.push(`${pair}: not an allowed tie in dependency-cruiser.config.cjs (${imports.join('; ')})`);
  }
  if (ties.length > config.MAX_FOLDER_TIES) problems.push(`${ties.length} folder pairs import each other, at most ${config.MAX_FOLDER_TIES}`);
  return problems;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const args = process.argv.slice(2);
  const verbose = args.includes('--verbose');
  const baseDir = args.find((arg) => !arg.startsWith('--'));
  const ties = await folderTies(baseDir ? path.resolve(baseDir) : root);
  const problems = tieProblems(ties);
  for (const problem of problems) console.error(`folder-ties: ${problem}`);
  if (verbose) for (const tie of ties) console.log(`${tie.pair}: ${tie.imports.join('; ')}`);
  console.log(`folder-ties: ${ties.length} folder pairs import each other (at most ${config.MAX_FOLDER_TIES}): ${ties.map((tie) => tie.pair).join(', ')}`);
  if (problems.length > 0) process.exitCode = 1;
}
