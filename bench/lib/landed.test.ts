import { describe, expect, it } from 'vitest';
import { figure, textTable } from './figures.ts';
import { compareWithLanded, formatChange, isGuarded, landFigures, parseLanded, regressionSummary, type LandedFile } from './landed.ts';

const run = { finishedAt: '2026-12-01T10:00:00.000Z', commit: 'abc1234' };

/** A landed full run: two guarded ratios, a p99 and the reference servers' own ratio. */
const landed: LandedFile = parseLanded(
  JSON.stringify({
    full: {
      'http.list.ratio': { value: 0.9, unit: '', label: 'GET /api/products: shop / raw node:http', ...run },
      'http.product.ratio': { value: 0.8, unit: '', label: 'GET /api/products/:id: shop / raw node:http', ...run },
      'http.product.fastifyRatio': { value: 1.2, unit: '', label: 'bare Fastify / raw', ...run },
      'scale.myOrders.p99': { value: 20, unit: 'ms', label: 'My Orders p99', ...run },
    },
  }),
);

describe('the regression guard against the landed run', () => {
  it('flags a ratio that fell by more than 10% and not one that rose', () => {
    const figures = [
      figure('http.list.ratio', 'GET /api/products: shop / raw node:http', 0.72, '', { op: '>=', value: 0.8 }),
      figure('http.product.ratio', 'GET /api/products/:id: shop / raw node:http', 0.96, '', { op: '>=', value: 0.8 }),
    ];
    const changes = compareWithLanded(figures, landed.full);
    expect(changes.map((change) => [change.key, change.regression])).toEqual([
      ['http.list.ratio', true],
      ['http.product.ratio', false],
    ]);
    expect(changes[0]!.change).toBeCloseTo(-0.2);
    expect(changes[1]!.change).toBeCloseTo(0.2);
    const summary = regressionSummary(figures, changes).join('\n');
    expect(summary).toContain('1 of 2 ratios fell by more than 10%');
    expect(summary).toContain('REGRESSION GET /api/products: shop / raw node:http: 0.72 (was 0.9 at abc1234');
    expect(summary).not.toContain('GET /api/products/:id');
    expect(formatChange(changes[0])).toBe('-20.0% (was 0.9) REGRESSION');
    expect(formatChange(changes[1])).toBe('+20.0% (was 0.8)');
    // The change is printed next to each figure in the table.
    expect(textTable(figures, new Map(changes.map((change) => [change.key, formatChange(change)])))).toMatch(
      /shop \/ raw node:http +0\.72 +>= 0\.8 +NO +-20\.0% \(was 0\.9\) REGRESSION/,
    );
  });

  it('lets a ratio within 10% pass, and shows p99s and the reference servers without flagging them', () => {
    const figures = [
      figure('http.list.ratio', 'list', 0.82, '', { op: '>=', value: 0.8 }),
      figure('http.product.fastifyRatio', 'bare Fastify / raw', 0.6, ''),
      figure('scale.myOrders.p99', 'My Orders p99', 80, 'ms', { op: '<', value: 50 }),
    ];
    const changes = compareWithLanded(figures, landed.full);
    expect(changes.map((change) => [change.key, change.guarded, change.regression])).toEqual([
      ['http.list.ratio', true, false],
      ['http.product.fastifyRatio', false, false],
      ['scale.myOrders.p99', false, false],
    ]);
    expect(formatChange(changes[2])).toBe('+300.0% (was 20)');
    expect(regressionSummary(figures, changes)).toEqual(['regression guard: none of 1 ratios fell by more than 10% against the landed run']);
  });

  it('compares a quick run only with the landed quick figures', () => {
    const figures = [figure('http.list.ratio', 'list', 0.5, '')];
    expect(compareWithLanded(figures, landed.quick)).toEqual([]);
    expect(regressionSummary(figures, [])[0]).toContain('no landed figure of this mode');
  });

  it('guards same-run ratios only', () => {
    expect(isGuarded({ key: 'http.list.bareFastifyRatio', unit: '' })).toBe(true);
    expect(isGuarded({ key: 'digital.download.ratio', unit: 'x' })).toBe(true);
    expect(isGuarded({ key: 'http.list.fastifyRatio', unit: '' })).toBe(false);
    // The desk's "sqlRatio" figure is the bare SQL p99 in ms.
    expect(isGuarded({ key: 'scale.desk.email.sqlRatio', unit: 'ms' })).toBe(false);
    expect(isGuarded({ key: 'http.list.rps', unit: 'req/s' })).toBe(false);
  });

  it('lands a partial run over the earlier landed figures, keeping what it did not measure', () => {
    const next = landFigures(
      landed,
      [figure('http.list.ratio', 'list', 0.95, ''), { key: 'scale.failed', label: 'scale: did not complete', value: null, unit: '', met: false }],
      'full',
      { finishedAt: '2026-12-07T12:00:00.000Z', commit: 'def5678' },
    );
    expect(next.full['http.list.ratio']).toEqual({ value: 0.95, unit: '', label: 'list', finishedAt: '2026-12-07T12:00:00.000Z', commit: 'def5678' });
    expect(next.full['scale.myOrders.p99']!.value).toBe(20);
    expect(next.full['scale.failed']).toBeUndefined();
    expect(next.quick).toEqual({});
  });
});
