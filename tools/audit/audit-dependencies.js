// CI's dependency audit (issue 25, security 19): `npm audit` of the production dependencies;
// a high or critical advisory fails the run unless .ci/audit-exceptions.json names it with a
// reason and a review date that has not passed. An audit that cannot run fails too: "no
// answer" is not "no advisories" (AUDIT_UNREACHABLE=warn turns only that case into a warning).
// Usage: `npm run audit:deps` (or `--report <npm audit JSON>`).
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');
export const EXCEPTIONS_FILE = path.join(root, '.ci/audit-exceptions.json');
const FAILING = new Set(['high', 'critical']);

/**
 * What an `npm audit --json` report (npm 7 and later) and the exception list decide:
 * `failures` (advisories not excepted, expired exceptions, an audit that did not run),
 * `excepted` and `stale` (exceptions no advisory matches any more: remove them).
 */
export function judgeAudit(report, exceptions, today = new Date().toISOString().slice(0, 10)) {
  const failures = [];
  const excepted = [];
  if (!report || typeof report !== 'object' || report.error || !report.vulnerabilities) {
    const why = report?.error?.summary || report?.message || 'no report';
    return { failures: [`The audit did not run: ${why}`], excepted, stale: [] };
  }
  const advisories = new Map();
  for (const [name, vulnerability] of Object.entries(report.vulnerabilities)) {
    for (const via of vulnerability.via ?? []) {
      if (typeof via !== 'object' || !FAILING.has(via.severity)) continue;
      const id = via.url ?? `${via.name ?? name}:${via.source}`;
      const entry = advisories.get(id) ?? { id, title: via.title, severity: via.severity, packages: new Set() };
      entry.packages.add(via.name ?? name);
      advisories.set(id, entry);
    }
  }
  const used = new Set();
  for (const advisory of advisories.values()) {
    const exception = exceptions.find((candidate) => candidate.advisory === advisory.id);
    const label = `${advisory.severity}: ${advisory.title} (${advisory.id}) in ${[...advisory.packages].join(', ')}`;
    if (!exception) {
      failures.push(label);
      continue;
    }
    used.add(exception.advisory);
    if (!exception.reason || !/^\d{4}-\d{2}-\d{2}$/.test(exception.reviewBy ?? '')) failures.push(`${label}: its exception needs a reason and a reviewBy date`);
    else if (exception.reviewBy < today) failures.push(`${label}: its exception expired on ${exception.reviewBy}`);
    else excepted.push(`${label}: excepted until ${exception.reviewBy} (${exception.reason})`);
  }
  const stale = exceptions.filter((exception) => !used.has(exception.advisory)).map((exception) => exception.advisory);
  return { failures, excepted, stale };
}

function runNpmAudit() {
  return new Promise((resolve) => {
    // npm audit exits non-zero when it finds anything: the JSON on stdout is what counts.
    execFile('npm', ['audit', '--omit=dev', '--json'], { cwd: root, maxBuffer: 64 * 1024 * 1024 }, (_error, stdout) => {
      try {
        resolve(JSON.parse(stdout));
      } catch {
        resolve({ message: `npm audit printed no JSON: ${String(stdout).slice(0, 200)}` });
      }
    });
  });
}

async function main() {
  const at = process.argv.indexOf('--report');
  const report = at > 0 ? JSON.parse(await readFile(process.argv[at + 1], 'utf8')) : await runNpmAudit();
  const exceptions = JSON.parse(await readFile(EXCEPTIONS_FILE, 'utf8')).exceptions;
  const { failures, excepted, stale } = judgeAudit(report, exceptions);
  for (const line of excepted) console.log(`excepted ${line}`);
  for (const advisory of stale) console.log(`stale exception (no advisory matches it now; remove it): ${advisory}`);
  // An operator who accepts running without the audit service says so explicitly; found
  // advisories still fail.
  const unreachable = failures.length === 1 && failures[0].startsWith('The audit did not run');
  if (unreachable && process.env.AUDIT_UNREACHABLE === 'warn') {
    console.warn(`WARNING ${failures[0]} (AUDIT_UNREACHABLE=warn: not failing)`);
    return;
  }
  for (const line of failures) console.error(`FAIL ${line}`);
  if (failures.length > 0) process.exitCode = 1;
  else console.log('Dependency audit: no high or critical advisory in the production dependencies beyond the documented exceptions.');
}

if (process.argv[1] && path.resolve(process.argv[1]) === import.meta.filename) await main();
