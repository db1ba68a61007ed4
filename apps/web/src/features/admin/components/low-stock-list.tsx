import { useState, type FormEvent } from 'react';
import { lineName, STOCK_MESSAGES } from '@storefront/domain/variants.ts';
import { errorSentence } from '../../../lib/error-message.ts';
import { toast } from '../../../lib/toast.ts';
import { useLowStock, useSetStock, type LowStockRow } from '../api/low-stock.ts';

/** The /release low-stock list (issue 15): variants with 5 or fewer left, each with a restock form. */
export function LowStockList() {
  const low = useLowStock();
  if (!low.data) return null;
  return (
    <section className="low-stock" aria-labelledby="low-stock-heading">
      <h2 id="low-stock-heading">Low stock</h2>
      {low.data.length === 0 ? (
        <p>Nothing is running low.</p>
      ) : (
        <ul className="low-stock__list">
          {low.data.map((row) => (
            <LowStockItem key={row.variantId} row={row} />
          ))}
        </ul>
      )}
    </section>
  );
}

function LowStockItem({ row }: { row: LowStockRow }) {
  const [value, setValue] = useState(String(row.stock));
  const setStock = useSetStock();
  const name = lineName(row.productName, row.options);
  const inputId = `restock-${row.variantId}`;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const stock = Number(value);
    if (value.trim() === '' || !Number.isSafeInteger(stock) || stock < 0) {
      toast.error(STOCK_MESSAGES.stock);
      return;
    }
    setStock.mutate(
      { variantId: row.variantId, stock, reason: 'restock' },
      { onSuccess: () => toast.success(`${name}: stock set to ${stock}.`), onError: (error) => toast.error(errorSentence(error)) },
    );
  };
  return (
    <li className="low-stock__item">
      <span>
        {name}
        {row.sku ? ` (${row.sku})` : ''}: {row.stock === 0 ? STOCK_MESSAGES.soldOut : `${row.stock} left`}
      </span>
      <form onSubmit={submit} className="low-stock__form">
        <label htmlFor={inputId}>New stock for {name}</label>
        <input id={inputId} type="number" min={0} inputMode="numeric" value={value} onChange={(event) => setValue(event.target.value)} />
        <button type="submit" className="button button--secondary" disabled={setStock.isPending}>
          Restock
        </button>
      </form>
    </li>
  );
}
