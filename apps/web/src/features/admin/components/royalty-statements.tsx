import { useId, useState, type FormEvent } from 'react';
import { formatUsd } from '@storefront/domain/money.ts';
import { STATEMENT_MESSAGES, STATEMENT_PERIOD_PATTERN } from '@storefront/domain/royalty-statements.ts';
import { errorSentence } from '../../../lib/error-message.ts';
import { StatementSheet } from '../../../ui/royalties/statement-sheet.tsx';
import { Invitations } from './royalty-invitations.tsx';
import {
  getRoyaltyStatementCsv,
  useIssueRoyaltyStatement,
  useRoyaltyPayouts,
  useRoyaltyStatement,
  useRoyaltyStatements,
  useRunRoyaltyPayouts,
  useSetRoyaltyPayoutAccount,
  type Royalties,
  type StatementRef,
} from '../api/royalties.ts';

/** This month as "2026-12" (the form's first guess; the server counts the label's days). */
const thisMonth = () => new Date().toISOString().slice(0, 7);

const STATUS_NAMES = { pending: 'Waiting to be sent', sending: 'Sending', paid: 'Paid', failed: 'Failed' } as const;

/**
 * Statements and payouts of the Royalties section (issue 36 parts 4-5, decision 077): a party's
 * statement of a month or quarter (a draft until issued; issued ones never change), printed or
 * downloaded as CSV; each party's connected account; a payout run for a period and its payouts.
 */
export function StatementsAndPayouts({ data, onDone }: { data: Royalties; onDone: (text: string) => void }) {
  return (
    <>
      <Statements data={data} onDone={onDone} />
      <Invitations data={data} onDone={onDone} />
      <PayoutAccountForm data={data} onDone={onDone} />
      <Payouts onDone={onDone} />
    </>
  );
}

function Statements({ data, onDone }: { data: Royalties; onDone: (text: string) => void }) {
  const id = useId();
  const parties = data.parties.filter((party) => !party.house);
  const [partyId, setPartyId] = useState('');
  const [period, setPeriod] = useState(thisMonth);
  const [ref, setRef] = useState<StatementRef | null>(null);
  const [problem, setProblem] = useState('');
  const issuedList = useRoyaltyStatements();
  const show = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!partyId) return setProblem('Choose a party.');
    if (!STATEMENT_PERIOD_PATTERN.test(period.trim())) return setProblem(STATEMENT_MESSAGES.period);
    setProblem('');
    setRef({ partyId: Number(partyId), period: period.trim() });
  };
  return (
    <section aria-labelledby={`${id}-title`}>
      <h4 id={`${id}-title`}>Statements</h4>
      <form className="console-roster__form" onSubmit={show} noValidate aria-label="Statement">
        <select aria-label="Statement party" className="field-control" value={partyId} onChange={(event) => setPartyId(event.target.value)}>
          <option value="">Choose a party…</option>
          {parties.map((party) => (
            <option key={party.id} value={party.id}>
              {party.name}
            </option>
          ))}
        </select>
        <label htmlFor={`${id}-period`}>Month or quarter</label>
        <input id={`${id}-period`} className="field-control" value={period} placeholder="2026-11 or 2026-Q4" onChange={(event) => setPeriod(event.target.value)} />
        <button type="submit" className="button">
          Show statement
        </button>
        <div role="alert">{problem}</div>
      </form>
      {ref ? <StatementView reference={ref} onDone={onDone} onIssued={(statementId) => setRef({ statementId })} /> : null}
      <h4>Issued statements</h4>
      {issuedList.data && issuedList.data.statements.length === 0 ? <p>No statement issued yet.</p> : null}
      <ul aria-label="Issued statements">
        {(issuedList.data?.statements ?? []).map((statement) => (
          <li key={statement.id} data-testid="issued-statement">
            <button type="button" className="button button--secondary" onClick={() => setRef({ statementId: statement.id })}>
              {statement.partyName} · {statement.period}
            </button>{' '}
            closing {formatUsd(statement.closingCents)}
          </li>
        ))}
      </ul>
    </section>
  );
}

function StatementView({ reference, onDone, onIssued }: { reference: StatementRef; onDone: (text: string) => void; onIssued: (statementId: number) => void }) {
  const statement = useRoyaltyStatement(reference);
  const issue = useIssueRoyaltyStatement();
  const [problem, setProblem] = useState('');
  if (statement.isPending) return <p>Loading the statement…</p>;
  if (statement.isError) return <p role="alert">{errorSentence(statement.error, 'Could not load the statement.')}</p>;
  const data = statement.data;
  const download = async () => {
    setProblem('');
    try {
      const { filename, csv } = await getRoyaltyStatementCsv(data.id ? { statementId: data.id } : reference);
      const url = URL.createObjectURL(new Blob([csv], { type: 'text/csv;charset=utf-8' }));
      const link = document.createElement('a');
      link.href = url;
      link.download = filename;
      link.click();
      setTimeout(() => URL.revokeObjectURL(url), 1000);
    } catch (error) {
      setProblem(errorSentence(error, 'Could not make the CSV.'));
    }
  };
  const close = () =>
    issue.mutate(
      { partyId: data.party.id, period: data.period },
      {
        onSuccess: (issued) => {
          setProblem('');
          onDone(`Statement of ${issued.party.name} for ${issued.period} issued.`);
          if (issued.id) onIssued(issued.id);
        },
        onError: (error) => setProblem(errorSentence(error, 'Could not issue the statement.')),
      },
    );
  return (
    <div>
      <StatementSheet statement={data} />
      <div className="console-royalties__actions">
        {data.id === null ? (
          <button type="button" className="button" onClick={close} disabled={issue.isPending}>
            Issue statement
          </button>
        ) : null}
        <button type="button" className="button button--secondary" onClick={() => void download()}>
          Download CSV
        </button>
        <button type="button" className="button button--secondary" onClick={() => window.print()}>
          Print
        </button>
      </div>
      <div role="alert">{problem}</div>
    </div>
  );
}

function PayoutAccountForm({ data, onDone }: { data: Royalties; onDone: (text: string) => void }) {
  const save = useSetRoyaltyPayoutAccount();
  const id = useId();
  const [partyId, setPartyId] = useState('');
  const [account, setAccount] = useState('');
  const [problem, setProblem] = useState('');
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!partyId) return setProblem('Choose a party.');
    const accountId = account.trim() || null;
    if (accountId && !/^acct_[A-Za-z0-9_]{1,100}$/.test(accountId)) return setProblem(STATEMENT_MESSAGES.accountId);
    save.mutate(
      { partyId: Number(partyId), accountId },
      {
        onSuccess: () => {
          setProblem('');
          setAccount('');
          onDone(accountId ? 'Payout account saved.' : 'Payout account removed: the balance accrues.');
        },
        onError: (error) => setProblem(errorSentence(error, 'Could not save the payout account.')),
      },
    );
  };
  return (
    <form className="console-roster__form" onSubmit={submit} noValidate aria-label="Payout account">
      <h4>Payout accounts</h4>
      <ul aria-label="Connected accounts">
        {data.parties
          .filter((party) => !party.house)
          .map((party) => (
            <li key={party.id}>
              {party.name}: {party.payoutAccountId ?? 'no account (accrues)'}
            </li>
          ))}
      </ul>
      <select aria-label="Account party" className="field-control" value={partyId} onChange={(event) => setPartyId(event.target.value)}>
        <option value="">Choose a party…</option>
        {data.parties
          .filter((party) => !party.house)
          .map((party) => (
            <option key={party.id} value={party.id}>
              {party.name}
            </option>
          ))}
      </select>
      <label htmlFor={`${id}-account`}>Connected account (acct_…, empty: none)</label>
      <input id={`${id}-account`} className="field-control" value={account} autoComplete="off" onChange={(event) => setAccount(event.target.value)} />
      <button type="submit" className="button" disabled={save.isPending}>
        Save account
      </button>
      <div role="alert">{problem}</div>
    </form>
  );
}

function Payouts({ onDone }: { onDone: (text: string) => void }) {
  const run = useRunRoyaltyPayouts();
  const payouts = useRoyaltyPayouts();
  const id = useId();
  const [period, setPeriod] = useState(thisMonth);
  const [problem, setProblem] = useState('');
  const [result, setResult] = useState('');
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!STATEMENT_PERIOD_PATTERN.test(period.trim())) return setProblem(STATEMENT_MESSAGES.period);
    run.mutate(
      { period: period.trim() },
      {
        onSuccess: (summary) => {
          setProblem('');
          const accrued = summary.accrued.map((party) => `${party.partyName} accrues ${formatUsd(party.balanceCents)}`).join('; ');
          const text = `Payout run ${summary.period}: ${summary.paid} paid, ${summary.pending} waiting, ${summary.failed} failed.${accrued ? ` ${accrued}.` : ''}`;
          setResult(text);
          onDone(text);
        },
        onError: (error) => setProblem(errorSentence(error, 'Could not run the payouts.')),
      },
    );
  };
  return (
    <section aria-labelledby={`${id}-title`}>
      <h4 id={`${id}-title`}>Payouts</h4>
      <form className="console-roster__form" onSubmit={submit} noValidate aria-label="Payout run">
        <label htmlFor={`${id}-period`}>Pay balances up to the end of (month or quarter)</label>
        <input id={`${id}-period`} className="field-control" value={period} onChange={(event) => setPeriod(event.target.value)} />
        <button type="submit" className="button" disabled={run.isPending}>
          Run payouts
        </button>
        <div role="alert">{problem}</div>
        <p data-testid="payout-run-result">{result}</p>
      </form>
      <div className="console-royalties__scroll">
        <table className="console-royalties__balances">
          <caption>Payouts</caption>
          <thead>
            <tr>
              <th scope="col">Party</th>
              <th scope="col">Run</th>
              <th scope="col">Amount</th>
              <th scope="col">Status</th>
              <th scope="col">Transfer</th>
            </tr>
          </thead>
          <tbody>
            {(payouts.data?.payouts ?? []).map((payout) => (
              <tr key={payout.id} data-testid="royalty-payout">
                <th scope="row">{payout.partyName}</th>
                <td>{payout.runId.replace(/^rpr_/, '')}</td>
                <td>{formatUsd(payout.amountCents)}</td>
                <td>
                  {STATUS_NAMES[payout.status]}
                  {payout.lastError && payout.status !== 'paid' ? ` (${payout.lastError})` : ''}
                </td>
                <td>{payout.transferId ?? '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
