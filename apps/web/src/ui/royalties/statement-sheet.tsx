import type { FunctionOutput } from '@storefront/domain/contracts/index.ts';
import { formatUsd } from '@storefront/domain/money.ts';
import './statement-sheet.css';

/** An issued (or draft) statement: the console's and a party's portal's (issue 36 parts 4 and 6). */
export type RoyaltyStatement = FunctionOutput<'getRoyaltyStatement'>;

/** An instant as the label's day (the statement's time zone). */
export const labelDay = (at: string, timeZone: string) => new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date(at));

/** The statement as printed: its figures, then earnings by release and format, then payouts. */
export function StatementSheet({ statement }: { statement: RoyaltyStatement }) {
  const figures: [string, number][] = [
    ['Opening balance', statement.openingCents],
    ['Earnings', statement.earningsCents],
    ['Recouped costs', -statement.recoupedCents],
    ['Reserve held', -statement.reserveHeldCents],
    ['Reserve released', statement.reserveReleasedCents],
    ['Payouts', -statement.payoutsCents],
  ];
  return (
    <article className="royalty-statement" data-testid="royalty-statement" aria-label={`Statement of ${statement.party.name} for ${statement.period}`}>
      <h5>
        Statement · {statement.party.name} · {statement.period}
      </h5>
      <p>
        {statement.from} to {statement.through} ({statement.timeZone}) ·{' '}
        {statement.issuedAt ? `Issued ${labelDay(statement.issuedAt, statement.timeZone)}` : 'Draft: not issued yet'}
      </p>
      <div className="royalty-statement__scroll">
        <table className="royalty-statement__table">
          <tbody>
            {figures.map(([name, cents]) => (
              <tr key={name}>
                <th scope="row">{name}</th>
                <td>{formatUsd(cents)}</td>
              </tr>
            ))}
            <tr>
              <th scope="row">Closing balance</th>
              <td data-testid="statement-closing">{formatUsd(statement.closingCents)}</td>
            </tr>
          </tbody>
        </table>
      </div>
      {statement.earlierCents !== 0 ? <p>Of these, {formatUsd(statement.earlierCents)} is dated before the period (posted after the statement that covered its day).</p> : null}
      <div className="royalty-statement__scroll">
        <table className="royalty-statement__table">
          <caption>Earnings by release and format</caption>
          <thead>
            <tr>
              <th scope="col">Release</th>
              <th scope="col">Format</th>
              <th scope="col">Sold</th>
              <th scope="col">Returned</th>
              <th scope="col">Net</th>
            </tr>
          </thead>
          <tbody>
            {statement.earnings.map((row) => (
              <tr key={`${row.releaseId ?? ''}:${row.format}`}>
                <th scope="row">{row.release}</th>
                <td>{row.format}</td>
                <td>{formatUsd(row.soldCents)}</td>
                <td>{formatUsd(row.returnedCents)}</td>
                <td>{formatUsd(row.soldCents + row.returnedCents)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {statement.payouts.length > 0 ? (
        <ul aria-label="Payouts on this statement">
          {statement.payouts.map((payout) => (
            <li key={`${payout.id}:${payout.amountCents}`}>
              {labelDay(payout.at, statement.timeZone)}: {formatUsd(payout.amountCents)}
            </li>
          ))}
        </ul>
      ) : null}
    </article>
  );
}
