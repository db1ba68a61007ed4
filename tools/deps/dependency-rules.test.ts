import path from 'node:path';
import { createRequire } from 'node:module';
import { cruise } from 'dependency-cruiser';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { folderTies, tieProblems } from './folder-ties.mjs';

// Each rule of issue 34 (decision 065) run on a fixture that breaks it.
const root = path.resolve(import.meta.dirname, '../..');
const tangled = path.join(import.meta.dirname, 'fixtures/tangled');
const config = createRequire(import.meta.url)(path.join(root, 'dependency-cruiser.config.cjs'));

describe('the server import rules (dependency-cruiser.config.cjs)', () => {
  it('shell-imports-no-area: fails on http/ importing an area', async () => {
    const { output } = await cruise(['apps/server/src'], { ...config.options, baseDir: tangled, validate: true, ruleSet: { forbidden: config.forbidden } });
    const broken = output.summary.violations.map(
      (violation: { rule: { name: string }; from: string; to: string }) => `${violation.rule.name}: ${violation.from} -> ${violation.to}`,
    );
    expect(broken).toEqual(['shell-imports-no-area: apps/server/src/http/page.ts -> apps/server/src/orders/orders.service.ts']);
  });

  it('passes on the server itself', async () => {
    const { output } = await cruise(['apps/server/src'], { ...config.options, baseDir: root, validate: true, ruleSet: { forbidden: config.forbidden } });
    expect(output.summary.violations).toEqual([]);
  });

  it('folder ties: a pair with the shell and an unlisted pair fail, a type-only import counts', async () => {
    const ties = await folderTies(tangled);
    expect(ties.map((tie) => tie.pair)).toEqual(['http-orders', 'orders-payments']);
    const problems = tieProblems(ties);
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/^http-orders: the shell imports no area/);
    expect(problems[1]).toMatch(/^orders-payments: not an allowed tie/);
  });

  it('folder ties: more than the allowed number fail, even when each is listed', () => {
    const listed = Object.keys(config.FOLDER_TIES).map((pair) => ({ pair, imports: [] }));
    const many = Array.from({ length: config.MAX_FOLDER_TIES + 1 }, (_, index) => listed[index % listed.length]);
    expect(tieProblems(listed)).toEqual([]);
    expect(tieProblems(many)).toEqual([`${config.MAX_FOLDER_TIES + 1} folder pairs import each other, at most ${config.MAX_FOLDER_TIES}`]);
  });
});

describe('no file over 450 lines outside tests (eslint max-lines)', () => {
  const eslint = new ESLint({ cwd: root });
  const lines = (count: number) => Array.from({ length: count }, (_, index) => `export const line${index} = ${index};`).join('\n') + '\n';
  const maxLinesErrors = async (file: string, text: string) =>
    (await eslint.lintText(text, { filePath: path.join(root, file) }))[0]!.messages.filter((message) => message.ruleId === 'max-lines');

  it('fails a 451-line source file, passes 450 lines and a long test', async () => {
    expect(await maxLinesErrors('apps/server/src/orders/long.service.ts', lines(451))).toHaveLength(1);
    expect(await maxLinesErrors('apps/server/src/orders/long.service.ts', lines(450))).toHaveLength(0);
    expect(await maxLinesErrors('apps/server/src/orders/long.test.ts', lines(600))).toHaveLength(0);
  });
});
