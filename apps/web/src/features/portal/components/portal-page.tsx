import { useId, useState } from 'react';
import { formatUsd } from '@storefront/domain/money.ts';
import { recoupPercent, recoupSentence } from '@storefront/domain/royalty-portal.ts';
import { errorSentence } from '../../../lib/error-message.ts';
import { paths } from '../../../lib/paths.ts';
import { Link, useLocation } from '../../../lib/router.tsx';
import { useSession } from '../../../lib/session.ts';
import { ErrorState } from '../../../ui/error-state.tsx';
import { ProgressBar } from '../../../ui/progress-bar.tsx';
import { StatementSheet } from '../../../ui/royalties/statement-sheet.tsx';
import { LoadingRegion, SkeletonText } from '../../../ui/skeleton.tsx';
import { getMyStatementCsv, useConnectPayouts, useMyRoyalties, useMyStatement, type PortalParty } from '../api/portal.ts';
import './portal.css';

const KIND = { artist: 'Artist', producer: 'Producer', label: 'Label', 'other-label': 'Label' } as const;
const PAYOUT_STATUS = { pending: 'Waiting to be sent', sending: 'Sending', paid: 'Paid', failed: 'Failed (the amount is back in your balance)' } as const;

/**
 * /portal (issue 36 part 6, decision 080): for each party the signed-in account holds, its issued
 * statements (page, print, CSV), live sales of its releases (units and its own earnings), recoup
 * progress per release, payouts, and "Connect payouts". Nothing of another party or of the label.
 */
export function PortalPage() {
  const session = useSession();
  const { pathname } = useLocation();
  const portal = useMyRoyalties(session.isSignedIn === true);
  return (
    <section className="page portal-page">
      <h1>My royalties</h1>
      {session.isLoading ? (
        <p role="status">Checking your account…</p>
      ) : !session.isSignedIn ? (
        <p>
          <Link to={paths.login} state={{ from: pathname }} className="button">
            Log in to see your royalties
          </Link>
        </p>
      ) : portal.isPending ? (
        <LoadingRegion label="Loading your royalties…">
          <SkeletonText lines={4} />
        </LoadingRegion>
      ) : portal.isError ? (
        <ErrorState title="Could not load your royalties." message={errorSentence(portal.error)} onRetry={() => void portal.refetch()} />
      ) : portal.data.parties.length === 0 ? (
        <p>Nothing here yet. When the label invites you by email, open the invitation&apos;s link while signed in with this account and your royalties appear here.</p>
      ) : (
        portal.data.parties.map((party) => <PartyPortal key={party.party.id} data={party} />)
      )}
    </section>
  );
}

function PartyPortal({ data }: { data: PortalParty }) {
  const id = useId();
  return (
    <article className="portal-party" aria-labelledby={`${id}-name`} data-testid="portal-party">
      <h2 id={`${id}-name`}>
        {data.party.name} <span className="portal-party__kind">{KIND[data.party.kind]}</span>
      </h2>
      <p data-testid="portal-balance">Balance now: {formatUsd(data.balanceCents)}</p>
      <ConnectPayouts data={data} />
      <Recoup data={data} />
      <Sales data={data} />
      <Statements data={data} />
      <Payouts data={data} />
    </article>
  );
}

function ConnectPayouts({ data }: { data: PortalParty }) {
  const connect = useConnectPayouts();
  const go = () => connect.mutate(data.party.id, { onSuccess: ({ url }) => window.location.assign(url) });
  return (
    <section className="portal-party__section" aria-label="Payout account">
      <h3>Payout account</h3>
      {data.payouts === 'ready' ? (
        <p data-testid="portal-payouts">Payouts connected: the label&apos;s payout runs pay your balance to your account.</p>
      ) : (
        <>
          <p data-testid="portal-payouts">
            {data.payouts === 'pending'
              ? 'Your payout account is not set up yet: finish it to be paid.'
              : 'No payout account yet: your balance waits (accrues) until you connect one.'}
          </p>
          <button type="button" className="button" disabled={connect.isPending} onClick={go}>
            {data.payouts === 'pending' ? 'Finish setting up payouts' : 'Connect payouts'}
          </button>
          {connect.isError ? <p role="alert">{errorSentence(connect.error, 'Could not open the payout setup.')}</p> : null}
        </>
      )}
    </section>
  );
}

function Recoup({ data }: { data: PortalParty }) {
  if (data.recoup.length === 0) return null;
  return (
    <section className="portal-party__section" aria-label="Recoup">
      <h3>Recoup</h3>
      <ul className="portal-recoup">
        {data.recoup.map((row) => {
          const percent = recoupPercent(row.recoupedCents, row.totalCents);
          const text = recoupSentence(row.release, row.recoupedCents, row.totalCents);
          return (
            <li key={row.releaseId} data-testid="portal-recoup">
              <p>{text}</p>
              <ProgressBar value={percent} label={`Recouped of ${row.release}`} />
            </li>
          );
        })}
      </ul>
    </section>
  );
}

function Sales({ data }: { data: PortalParty }) {
  return (
    <section className="portal-party__section" aria-label="Sales">
      <h3>Sales</h3>
      {data.sales.length === 0 ? (
        <p>No sales yet.</p>
      ) : (
        <div className="royalty-statement__scroll">
          <table className="royalty-statement__table">
            <caption className="visually-hidden">Sales of your releases up to now</caption>
            <thead>
              <tr>
                <th scope="col">Release</th>
                <th scope="col">Units sold</th>
                <th scope="col">Sold</th>
                <th scope="col">Returned</th>
                <th scope="col">Your earnings</th>
              </tr>
            </thead>
            <tbody>
              {data.sales.map((row) => (
                <tr key={row.releaseId ?? 'none'} data-testid="portal-sale">
                  <th scope="row">{row.release}</th>
                  <td>{row.units}</td>
                  <td>{formatUsd(row.soldCents)}</td>
                  <td>{formatUsd(row.returnedCents)}</td>
                  <td>{formatUsd(row.earningsCents)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function Statements({ data }: { data: PortalParty }) {
  const [open, setOpen] = useState<number | null>(null);
  return (
    <section className="portal-party__section" aria-label="Statements">
      <h3>Statements</h3>
      {data.statements.length === 0 ? (
        <p>No statement issued yet.</p>
      ) : (
        <ul className="portal-statements">
          {data.statements.map((statement) => (
            <li key={statement.id}>
              <button type="button" className="button button--secondary" aria-pressed={open === statement.id} onClick={() => setOpen(open === statement.id ? null : statement.id)}>
                Statement {statement.period}
              </button>{' '}
              closing {formatUsd(statement.closingCents)}
            </li>
          ))}
        </ul>
      )}
      {open !== null ? <StatementView statementId={open} /> : null}
    </section>
  );
}

function StatementView({ statementId }: { statementId: number }) {
  const statement = useMyStatement(statementId);
  const [problem, setProblem] = useState('');
  if (statement.isPending) return <p role="status">Loading the statement…</p>;
  if (statement.isError) return <p role="alert">{errorSentence(statement.error, 'Could not load the statement.')}</p>;
  const download = async () => {
    setProblem('');
    try {
      const { filename, csv } = await getMyStatementCsv(statementId);
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
  return (
    <div>
      <StatementSheet statement={statement.data} />
      <p className="portal-page__actions">
        <button type="button" className="button button--secondary" onClick={() => void download()}>
          Download CSV
        </button>
        <button type="button" className="button button--secondary" onClick={() => window.print()}>
          Print
        </button>
      </p>
      <div role="alert">{problem}</div>
    </div>
  );
}

function Payouts({ data }: { data: PortalParty }) {
  return (
    <section className="portal-party__section" aria-label="Payouts">
      <h3>Payouts</h3>
      {data.payoutList.length === 0 ? (
        <p>No payouts yet.</p>
      ) : (
        <ul className="portal-payouts">
          {data.payoutList.map((payout) => (
            <li key={payout.id} data-testid="portal-payout">
              {payout.period}: {formatUsd(payout.amountCents)} · {PAYOUT_STATUS[payout.status]}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
