// Aggregates a V8 .cpuprofile (the bench server's, BENCH_PROFILE_DIR) into the lines a
// person reads: self time by function, by file (packages folded to their name), and the
// inclusive time of the functions named with --focus (time spent in them and everything
// they call, each sample counted once however deep the recursion).
//   node --import tsx bench/profile-summary.ts <file.cpuprofile> [--top=40] [--focus=name,name]
//        [--from=s --to=s: only the samples in that window, seconds after the profile starts]
//        [--callers=name: the call paths (5 frames up) that lead to the function of that name]
import fs from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

const args = process.argv.slice(2);
const file = args.find((arg) => !arg.startsWith('--'));
if (!file) throw new Error('usage: bench/profile-summary.ts <file.cpuprofile> [--top=40] [--focus=a,b] [--from=s] [--to=s]');
const option = (name: string) => args.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
const top = Number(option('top') ?? 40);
const focus = (option('focus') ?? '').split(',').filter(Boolean);
const from = option('from') === undefined ? -Infinity : Number(option('from')) * 1e6;
const callersOf = option('callers');
const to = option('to') === undefined ? Infinity : Number(option('to')) * 1e6;

const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const parent = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

/** `fastify`, `pino`, or the path under the repository for our own files. */
function place(url: string): string {
  if (!url) return '(native)';
  const modules = url.lastIndexOf('node_modules/');
  if (modules !== -1) {
    const rest = url.slice(modules + 'node_modules/'.length).split('/');
    return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  if (url.startsWith('node:')) return url;
  const repo = url.indexOf('/apps/');
  return repo !== -1 ? url.slice(repo + 1) : url.replace(/^file:\/\//, '');
}
const label = (node: ProfileNode) => `${node.callFrame.functionName || '(anonymous)'} ${place(node.callFrame.url)}${node.callFrame.url ? `:${node.callFrame.lineNumber + 1}` : ''}`;

const selfByFunction = new Map<string, number>();
const selfByFile = new Map<string, number>();
const inclusive = new Map<string, number>();
const callerPaths = new Map<string, number>();
let total = 0;
let idle = 0;
let at = profile.startTime;
for (let i = 0; i < profile.samples.length; i += 1) {
  at += profile.timeDeltas[i] ?? 0;
  const elapsed = at - profile.startTime;
  if (elapsed < from || elapsed > to) continue;
  const delta = profile.timeDeltas[i + 1] ?? 0;
  const node = byId.get(profile.samples[i]!)!;
  if (node.callFrame.functionName === '(idle)') {
    idle += delta;
    continue;
  }
  total += delta;
  selfByFunction.set(label(node), (selfByFunction.get(label(node)) ?? 0) + delta);
  const where = place(node.callFrame.url);
  selfByFile.set(where, (selfByFile.get(where) ?? 0) + delta);
  if (callersOf) {
    for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) {
      if (byId.get(id)!.callFrame.functionName !== callersOf) continue;
      const path: string[] = [];
      for (let up = parent.get(id); up !== undefined && path.length < 5; up = parent.get(up)) path.push(label(byId.get(up)!));
      const key = path.join(' < ');
      callerPaths.set(key, (callerPaths.get(key) ?? 0) + delta);
      break;
    }
  }
  if (focus.length > 0) {
    const seen = new Set<string>();
    for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) {
      const name = byId.get(id)!.callFrame.functionName;
      for (const wanted of focus) if (name === wanted && !seen.has(wanted)) seen.add(wanted);
    }
    for (const name of seen) inclusive.set(name, (inclusive.get(name) ?? 0) + delta);
  }
}

const ms = (us: number) => `${(us / 1000).toFixed(0).padStart(7)} ms`;
const pct = (us: number) => `${((us / total) * 100).toFixed(1).padStart(5)}%`;
const print = (title: string, map: Map<string, number>, count: number) => {
  console.log(`\n${title}`);
  for (const [name, us] of [...map].sort((a, b) => b[1] - a[1]).slice(0, count)) console.log(`${ms(us)} ${pct(us)}  ${name}`);
};
console.log(`${file}: ${ms(total)} busy, ${ms(idle)} idle`);
print('self time by file or package', selfByFile, top);
print('self time by function', selfByFunction, top);
if (callersOf) print(`call paths to ${callersOf} (inclusive time)`, callerPaths, 10);
if (focus.length > 0) print('inclusive time of --focus functions', inclusive, focus.length);
