// Rewrites the "NOT YET FORMATTED" block of .prettierignore with every file Prettier would
// change today (decision 036): after merging a branch written before Prettier, this keeps
// `npm run lint` about new formatting slips only. Delete the block once `npm run format` ran.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

const FILE = '.prettierignore';
const START = '# --- NOT YET FORMATTED: start (decision 036) ---';
const END = '# --- NOT YET FORMATTED: end ---';
const GLOB = '**/*.{ts,tsx,js,mjs,cjs,css}';

const text = fs.readFileSync(FILE, 'utf8');
const start = text.indexOf(START);
const end = text.indexOf(END);
if (start < 0 || end < 0) throw new Error(`${FILE} has no NOT YET FORMATTED block: every file is formatted already.`);
const head = text.slice(0, start);
const comment = text
  .slice(start, end)
  .split('\n')
  .filter((line) => line.startsWith('#'))
  .join('\n');
// Without the block, so that files it lists today are listed again if still unformatted.
fs.writeFileSync(FILE, head);
let listed;
try {
  listed = execFileSync('npx', ['prettier', '--list-different', GLOB], { encoding: 'utf8' });
} catch (error) {
  // Exit code 1: some files differ (the list is on stdout); 2: Prettier itself failed.
  if (error.status !== 1) {
    fs.writeFileSync(FILE, text);
    throw error;
  }
  listed = error.stdout;
}
const files = listed.split('\n').filter(Boolean).sort();
fs.writeFileSync(FILE, `${head}${comment}\n${files.join('\n')}${files.length ? '\n' : ''}${END}\n`);
console.log(`${files.length} files not yet formatted are listed in ${FILE}.`);
