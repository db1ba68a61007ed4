import { useState, type ReactNode } from 'react';
import { formatUsd } from '@storefront/domain/catalog.ts';
import { GIFT_CARD_FIGURES, SALES_FIGURES, SALES_MESSAGES, addDays, periodDays, salesCsv, todayIn, type SalesFigures, type SalesOverview } from '@storefront/domain/sales.ts';
import { jurisdictionLabel } from '@storefront/domain/sales-figures.ts';
import { FIRST_SALES_PERIOD, useSalesOverview, type SalesPeriod } from '../api/sales-overview.ts';
import { LoadState } from './load-state.tsx';
import './console.css';
import { DataTable, type DataColumn } from '../../../ui/data-table.tsx';

const PRESETS = [
  { id: 'last-7', label: 'Last 7 days' },
  { id: 'last-30', label: 'Last 30 days' },
  { id: 'last-90', label: 'Last 90 days' },
  { id: 'last-365', label: 'Last 365 days' },
  { id: 'this-month', label: 'This month' },
  { id: 'last-month', label: 'Last month' },
  { id: 'custom', label: 'Chosen dates' },
] as const;
type Preset = (typeof PRESETS)[number]['id'];

/** A preset's days, counted from today in the label's time zone. */
function presetPeriod(preset: Exclude<Preset, 'custom'>, today: string): SalesPeriod {
  if (preset.startsWith('last-') && preset !== 'last-month') return { days: Number(preset.slice(5)) };
  const firstOfThisMonth = `${today.slice(0, 8)}01`;
  if (preset === 'this-month') return { from: firstOfThisMonth, to: today };
  const lastOfLastMonth = addDays(firstOfThisMonth, -1);
  return { from: `${lastOfLastMonth.slice(0, 8)}01`, to: lastOfLastMonth };
}

/**
 * What the buyers paid (total collected) by day as stacked bars, wallet below card: hand-written SVG (decision 031),
 * with the same numbers in the tables below it for screen readers and keyboards.
 */
function DayChart({ overview }: { overview: SalesOverview }) {
  const days = overview.byDay;
  const max = Math.max(1, ...days.map((day) => day.totalCollectedCents));
  const width = Math.max(days.length * 14, 280);
  const height = 160;
  const bar = width / Math.max(days.length, 1);
  return (
    <svg
      className="console-sales__chart"
      viewBox={`0 0 ${width} ${height}`}
      role="img"
      aria-label={`Total collected by day from ${overview.from} to ${overview.to}: wallet and card`}
      preserveAspectRatio="none"
    >
      {days.map((day, index) => {
        const wallet = (day.paidWalletCents / max) * (height - 10);
        const card = (day.paidCardCents / max) * (height - 10);
        return (
          <g key={day.day}>
            <title>{`${day.day}: wallet ${formatUsd(day.paidWalletCents)}, card ${formatUsd(day.paidCardCents)}`}</title>
            <rect x={index * bar + 1} y={height - wallet} width={Math.max(bar - 2, 1)} height={wallet} className="console-sales__wallet" />
            <rect x={index * bar + 1} y={height - wallet - card} width={Math.max(bar - 2, 1)} height={card} className="console-sales__card" />
          </g>
        );
      })}
    </svg>
  );
}

function download(overview: SalesOverview) {
  const url = URL.createObjectURL(new Blob([salesCsv(overview)], { type: 'text/csv;charset=utf-8' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = `sales-${overview.from}-to-${overview.to}.csv`;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** A wide table scrolls sideways on a phone; the region takes focus so a keyboard can scroll it. */
function Scroll({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="console-sales__scroll" role="region" aria-label={label} tabIndex={0}>
      {children}
    </div>
  );
}

const money = (cents: number) => formatUsd(cents);

type FigureRow = { key: string; label: string; value: string; meaning: string };

/** A figure, its amount and what it means (issue 39): the same sentences as the CSV's definitions. */
function FigureTable({ caption, rows, testId }: { caption: string; rows: FigureRow[]; testId: string }) {
  return (
    <DataTable
      caption={caption}
      className="console-sales__totals"
      rows={rows}
      rowKey={(row) => row.key}
      columns={[
        { header: 'Figure', rowHeader: true, cell: (row) => row.label },
        { header: 'Amount', cell: (row) => <span data-testid={`${testId}-${row.key}`}>{row.value}</span>, className: 'console-sales__number' },
        { header: 'What it means', cell: (row) => row.meaning, className: 'console-sales__meaning' },
      ]}
    />
  );
}
const figureColumns: DataColumn<SalesFigures>[] = SALES_FIGURES.map(([key, label, isMoney]) => ({
  header: label,
  cell: (row: SalesFigures) => (isMoney ? money(row[key]) : row[key]),
  className: 'console-sales__number',
}));

type GoodsRow = Pick<SalesOverview['byProduct'][number], 'unitsSold' | 'grossSalesCents' | 'unitsRefunded' | 'refundedGoodsCents'>;
const goodsColumns: DataColumn<GoodsRow>[] = [
  { header: 'Units sold', cell: (row) => row.unitsSold, className: 'console-sales__number' },
  { header: 'Gross sales', cell: (row) => money(row.grossSalesCents), className: 'console-sales__number' },
  { header: 'Units refunded', cell: (row) => row.unitsRefunded, className: 'console-sales__number' },
  { header: 'Refunded goods', cell: (row) => money(row.refundedGoodsCents), className: 'console-sales__number' },
  { header: 'Net goods', cell: (row) => money(row.grossSalesCents - row.refundedGoodsCents), className: 'console-sales__number' },
];

/**
 * The sales overview as an accountant reads it (issue 29 item 1, decision 045): a chosen period
 * in the label's time zone, its totals, by day, by product and by variant, and the same as CSV.
 */
export function SalesTab() {
  const [preset, setPreset] = useState<Preset>('last-30');
  const [period, setPeriod] = useState<SalesPeriod>(FIRST_SALES_PERIOD);
  const [dates, setDates] = useState<{ from: string; to: string } | null>(null);
  const sales = useSalesOverview(period);
  const overview = sales.data;
  const today = overview ? todayIn(overview.timeZone) : todayIn(Intl.DateTimeFormat().resolvedOptions().timeZone);
  const shownFrom = dates?.from ?? overview?.from ?? '';
  const shownTo = dates?.to ?? overview?.to ?? '';
  const datesWrong = dates !== null && (dates.from === '' || dates.to === '' || periodDays(dates.from, dates.to) === null);

  const choosePreset = (next: Preset) => {
    setPreset(next);
    if (next === 'custom') {
      setDates({ from: shownFrom, to: shownTo });
      return;
    }
    setDates(null);
    setPeriod(presetPeriod(next, today));
  };
  const chooseDate = (which: 'from' | 'to', value: string) => {
    const next = { from: shownFrom, to: shownTo, [which]: value };
    setPreset('custom');
    setDates(next);
    if (next.from && next.to && periodDays(next.from, next.to) !== null) setPeriod(next);
  };

  return (
    <div className="console-sales">
      <h2 className="console__title">Sales</h2>
      <div className="console-sales__controls">
        <label htmlFor="console-sales-period">Period</label>
        <select id="console-sales-period" value={preset} onChange={(event) => choosePreset(event.target.value as Preset)}>
          {PRESETS.map((option) => (
            <option key={option.id} value={option.id}>
              {option.label}
            </option>
          ))}
        </select>
        <label htmlFor="console-sales-from">From</label>
        <input id="console-sales-from" type="date" value={shownFrom} max={today} onChange={(event) => chooseDate('from', event.target.value)} aria-invalid={datesWrong} />
        <label htmlFor="console-sales-to">To</label>
        <input id="console-sales-to" type="date" value={shownTo} max={today} onChange={(event) => chooseDate('to', event.target.value)} aria-invalid={datesWrong} />
        <button type="button" className="button button--secondary" disabled={!overview} onClick={() => overview && download(overview)}>
          Download CSV
        </button>
      </div>
      {datesWrong ? <p role="alert">{SALES_MESSAGES.period}</p> : null}
      {sales.isPending || sales.isError || !overview ? (
        <LoadState query={sales} label="Loading sales…" lines={6} failed="Could not load the sales." />
      ) : (
        <>
          <p className="console-sales__summary">
            <strong data-testid="orders-to-ship">{overview.ordersToShip}</strong> orders to ship · {overview.from} to {overview.to} ({overview.timeZone}) · net sales{' '}
            <strong data-testid="net-sales">{money(overview.totals.netSalesCents)}</strong>
          </p>
          <p className="console__hint">
            Orders count on the day they were placed, refunds on the day they were given, in the label’s time zone ({overview.timeZone}). Products and variants are goods only, at
            their line price (before discounts, VAT included where prices include it), gift cards left out.
          </p>
          <FigureTable
            caption="Totals"
            testId="total"
            rows={SALES_FIGURES.map(([key, label, isMoney, meaning]) => ({ key, label, meaning, value: isMoney ? money(overview.totals[key]) : String(overview.totals[key]) }))}
          />
          {overview.giftCards ? (
            <FigureTable
              caption="Gift cards (a liability, not sales)"
              testId="gift"
              rows={GIFT_CARD_FIGURES.map(([key, label, isMoney, meaning]) => {
                const cards = overview.giftCards!;
                return { key, label, meaning, value: isMoney ? money(cards[key]) : String(cards[key]) };
              })}
            />
          ) : null}
          <DayChart overview={overview} />
          <p className="console__hint">
            <span className="console-sales__key console-sales__wallet" /> paid by wallet <span className="console-sales__key console-sales__card" /> paid by card
          </p>
          <Scroll label="Sales by day">
            <DataTable caption="By day" rows={overview.byDay} rowKey={(day) => day.day} columns={[{ header: 'Day', rowHeader: true, cell: (day) => day.day }, ...figureColumns]} />
          </Scroll>
          {overview.byKind ? (
            <Scroll label="Digital and physical sales">
              <DataTable
                caption="Digital vs physical (goods only)"
                rows={overview.byKind}
                rowKey={(row) => row.kind}
                columns={[{ header: 'Kind', rowHeader: true, cell: (row) => (row.kind === 'digital' ? 'Digital' : 'Physical') }, ...goodsColumns]}
              />
            </Scroll>
          ) : null}
          <Scroll label="Sales by product">
            <DataTable
              caption="By product (goods only)"
              rows={overview.byProduct}
              rowKey={(row) => row.productId}
              columns={[{ header: 'Product', rowHeader: true, cell: (row) => row.name }, ...goodsColumns]}
            />
          </Scroll>
          {overview.byCode.length === 0 ? (
            <p className="console__hint">No discount codes were used in this period.</p>
          ) : (
            <Scroll label="Discount codes used">
              <DataTable
                caption="By discount code"
                rows={overview.byCode}
                rowKey={(row) => row.code}
                columns={[
                  { header: 'Code', rowHeader: true, cell: (row) => row.code },
                  { header: 'Orders', cell: (row) => row.orders, className: 'console-sales__number' },
                  { header: 'Discounts', cell: (row) => money(row.discountsCents), className: 'console-sales__number' },
                ]}
              />
            </Scroll>
          )}
          {overview.byPreorder && overview.byPreorder.length > 0 ? (
            <Scroll label="Preorders sold">
              <DataTable
                caption="Preorders sold in this period (paid now, out on their street date)"
                rows={overview.byPreorder}
                rowKey={(row) => `${row.productId}/${row.variantId ?? ''}/${row.shipsOn}`}
                columns={[
                  { header: 'Product', rowHeader: true, cell: (row) => row.name },
                  { header: 'Ships on', cell: (row) => row.shipsOn },
                  { header: 'Units', cell: (row) => row.unitsSold, className: 'console-sales__number' },
                  { header: 'Gross sales', cell: (row) => money(row.grossSalesCents), className: 'console-sales__number' },
                  { header: 'Not yet out', cell: (row) => row.unitsWaiting, className: 'console-sales__number' },
                ]}
              />
            </Scroll>
          ) : null}
          {overview.byBundlePart && overview.byBundlePart.length > 0 ? (
            <Scroll label="Bundle components sent">
              <DataTable
                caption="Bundle components (units sent in bundles)"
                rows={overview.byBundlePart}
                rowKey={(row) => `${row.bundleId}/${row.variantId}`}
                columns={[
                  { header: 'Bundle', rowHeader: true, cell: (row) => row.bundle },
                  { header: 'Component', cell: (row) => row.part },
                  { header: 'Units', cell: (row) => row.units, className: 'console-sales__number' },
                ]}
              />
            </Scroll>
          ) : null}
          <Scroll label="Sales by variant">
            <DataTable
              caption="By variant (goods only)"
              rows={overview.byVariant}
              rowKey={(row) => `${row.productId}/${row.variantId ?? ''}`}
              columns={[{ header: 'Product', rowHeader: true, cell: (row) => row.name }, { header: 'Variant', cell: (row) => row.variant || '—' }, ...goodsColumns]}
            />
          </Scroll>
          {overview.byTaxJurisdiction && overview.byTaxJurisdiction.length > 0 ? (
            <Scroll label="Tax by jurisdiction">
              <DataTable
                caption="Tax by jurisdiction"
                rows={overview.byTaxJurisdiction}
                rowKey={(row) => row.jurisdiction}
                columns={[
                  { header: 'Jurisdiction', rowHeader: true, cell: (row) => jurisdictionLabel(row.jurisdiction) },
                  { header: 'Orders', cell: (row) => row.orders, className: 'console-sales__number' },
                  { header: 'Tax added', cell: (row) => money(row.taxCents), className: 'console-sales__number' },
                  { header: 'Tax included', cell: (row) => money(row.taxIncludedCents), className: 'console-sales__number' },
                ]}
              />
            </Scroll>
          ) : null}
        </>
      )}
    </div>
  );
}
