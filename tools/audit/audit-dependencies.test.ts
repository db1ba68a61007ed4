import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { judgeAudit } from './audit-dependencies.js';

/** The shape `npm audit --json` prints (npm 7 and later), with one advisory per severity asked for. */
function report(...advisories: { name: string; severity: string; url: string }[]) {
  return {
    auditReportVersion: 2,
    vulnerabilities: Object.fromEntries(
      advisories.map((advisory) => [
        advisory.name,
        {
          name: advisory.name,
          severity: advisory.severity,
          isDirect: false,
          via: [{ source: 1, name: advisory.name, title: `A flaw in ${advisory.name}`, url: advisory.url, severity: advisory.severity, range: '<2.0.0' }, 'some-parent'],
        },
      ]),
    ),
  };
}
const critical = { name: 'left-pad', severity: 'critical', url: 'https://github.com/advisories/GHSA-aaaa-bbbb-cccc' };
const high = { name: 'right-pad', severity: 'high', url: 'https://github.com/advisories/GHSA-dddd-eeee-ffff' };
const moderate = { name: 'mid-pad', severity: 'moderate', url: 'https://github.com/advisories/GHSA-gggg-hhhh-iiii' };

describe('the dependency audit (issue 25, security 19)', () => {
  it('fails on a high or critical advisory, not on a moderate one', () => {
    expect(judgeAudit(report(moderate), [], '2026-11-27').failures).toEqual([]);
    const { failures } = judgeAudit(report(critical, high, moderate), [], '2026-11-27');
    expect(failures).toHaveLength(2);
    expect(failures[0]).toContain('GHSA-aaaa-bbbb-cccc');
    expect(failures[1]).toContain('right-pad');
  });

  it('lets a documented exception pass until its review date, then fails again', () => {
    const exception = { advisory: critical.url, package: 'left-pad', reason: 'only used by the build, never on a request path', reviewBy: '2026-12-31' };
    expect(judgeAudit(report(critical), [exception], '2026-11-27')).toMatchObject({ failures: [], stale: [] });
    expect(judgeAudit(report(critical), [exception], '2027-01-01').failures[0]).toContain('expired on 2026-12-31');
    expect(judgeAudit(report(critical), [{ ...exception, reason: '' }], '2026-11-27').failures[0]).toContain('needs a reason');
  });

  it('reports an exception no advisory matches as stale', () => {
    const exception = { advisory: high.url, package: 'right-pad', reason: 'x', reviewBy: '2026-12-31' };
    expect(judgeAudit(report(), [exception], '2026-11-27')).toEqual({ failures: [], excepted: [], stale: [high.url] });
  });

  it('fails when the audit could not run (an error answer is not a clean audit)', () => {
    expect(judgeAudit({ message: '405 Method Not Allowed', error: { summary: '' } }, []).failures[0]).toMatch(/^The audit did not run/);
    expect(judgeAudit(null, []).failures).toHaveLength(1);
  });

  it('exits non-zero from the command line on a failing report, zero on a clean one', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'audit-'));
    const run = async (body: unknown) => {
      const file = path.join(dir, 'report.json');
      await writeFile(file, JSON.stringify(body));
      return new Promise<number>((resolve) => {
        execFile(process.execPath, [new URL('./audit-dependencies.js', import.meta.url).pathname, '--report', file], (error) => resolve(error ? Number(error.code) : 0));
      });
    };
    expect(await run(report(high))).toBe(1);
    expect(await run(report(moderate))).toBe(0);
  });
});
