import { useState } from 'react';
import { formatUsd } from '@storefront/domain/catalog.ts';
import { salesCsv, type SalesOverview } from '@storefront/domain/console.ts';
import { useSalesOverview } from '../api/sales-overview.ts';
import { LoadState } from './load-state.tsx';
import './console.css';
import { DataTable } from '../../../ui/data-table.tsx';

const RANGES = [7, 30, 90, 365] as const;

/**
 * Revenue by day as stacked bars, wallet below card: hand-written SVG (decision 031), with
 * the same numbers in the table below it for screen readers and keyboards.
 */
function DayChart({ overview }: { overview: SalesOverview }) {
  const days = overview.byDay;
  const max = Math.max(1, ...days.map((day) => day.walletCents + day.cardCents));
  const width = Math.max(days.length * 14, 280);
  const height = 160;
  const bar = width / Math.max(days.length, 1);
  return (
    <svg
      className="console-sales__chart"
      viewBox={`0 0 ${width} ${height}`}
      role="img"
      aria-label={`Revenue by day over the last ${overview.days} days: wallet and card`}
      preserveAspectRatio="none"
    >
      {days.map((day, index) => {
        const wallet = (day.walletCents / max) * (height - 10);
        const card = (day.cardCents / max) * (height - 10);
        return (
          <g key={day.day}>
            <title>{`${day.day}: wallet ${formatUsd(day.walletCents)}, card ${formatUsd(day.cardCents)}`}</title>
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
  link.download = `sales-last-${overview.days}-days.csv`;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** The sales overview (issue 18): revenue by day and by product, wallet and card, orders to ship, CSV. */
export function SalesTab() {
  const [days, setDays] = useState<number>(30);
  const sales = useSalesOverview(days);
  const overview = sales.data;
  const total = (rows: { walletCents: number; cardCents: number }[]) => rows.reduce((sum, row) => sum + row.walletCents + row.cardCents, 0);
  return (
    <div className="console-sales">
      <h2 className="console__title">Sales</h2>
      <div className="console-sales__controls">
        <label htmlFor="console-sales-days">Period</label>
        <select id="console-sales-days" value={days} onChange={(event) => setDays(Number(event.target.value))}>
          {RANGES.map((range) => (
            <option key={range} value={range}>
              Last {range} days
            </option>
          ))}
        </select>
        <button type="button" className="button button--secondary" disabled={!overview} onClick={() => overview && download(overview)}>
          Download CSV
        </button>
      </div>
      {sales.isPending || sales.isError || !overview ? (
        <LoadState query={sales} label="Loading sales…" lines={6} failed="Could not load the sales." />
      ) : (
        <>
          <p className="console-sales__summary">
            <strong data-testid="orders-to-ship">{overview.ordersToShip}</strong> orders to ship · revenue {formatUsd(total(overview.byDay))}
          </p>
          <DayChart overview={overview} />
          <p className="console__hint">
            <span className="console-sales__key console-sales__wallet" /> wallet <span className="console-sales__key console-sales__card" /> card
          </p>
          {/* Two tables of different rows (days, products): their column lists are data and stay side by side. */}
          <div className="console-sales__tables">
            <DataTable
              caption="By day"
              rows={overview.byDay}
              rowKey={(day) => day.day}
              columns={[
                { header: 'Day', rowHeader: true, cell: (day) => day.day },
                { header: 'Orders', cell: (day) => day.orders },
                { header: 'Wallet', cell: (day) => formatUsd(day.walletCents) },
                { header: 'Card', cell: (day) => formatUsd(day.cardCents) },
              ]}
            />
            <DataTable
              caption="By product"
              rows={overview.byProduct}
              rowKey={(row) => row.productId}
              columns={[
                { header: 'Product', rowHeader: true, cell: (row) => row.name },
                { header: 'Qty', cell: (row) => row.qty },
                { header: 'Wallet', cell: (row) => formatUsd(row.walletCents) },
                { header: 'Card', cell: (row) => formatUsd(row.cardCents) },
              ]}
            />
          </div>
        </>
      )}
    </div>
  );
}
