import { useId, useState } from 'react';
import { Link } from '../../../lib/router.tsx';
import { usdToCents } from '@storefront/domain/catalog.ts';
import { formatCents } from '../wallet-format.ts';
import { errorSentence } from '../../../lib/error-message.ts';
import { useSession } from '../../../lib/session.ts';
import { toast } from '../../../lib/toast.ts';
import { ErrorState } from '../../../ui/error-state.tsx';
import { Skeleton } from '../../../ui/skeleton.tsx';
import { useCashout, useRequestPayout } from '../api/payouts.ts';
import { LoginRedirect } from './login-redirect.tsx';
import { PayoutAccount } from './payout-account.tsx';
import './wallet.css';
import { paths } from '../../../lib/paths.ts';
import { centsToDecimal } from '@storefront/domain/money.ts';

const STATUS_LABEL = { requested: 'Requested', paid: 'Paid', failed: 'Failed' } as const;

/** Cash Out (/cashout): request a payout of available earnings to the payout account. */
export function CashoutPage() {
  const session = useSession();
  if (!session.isLoading && !session.user) return <LoginRedirect from={paths.cashout} />;
  return (
    <section className="page cashout-page">
      <h1>Cash Out</h1>
      {/* Asked only once signed in: a signed-out visitor's call would only be refused. */}
      {session.user ? <CashoutContent /> : <Skeleton height="8rem" />}
      <Link to={paths.wallet} className="button button--secondary">
        Back to Wallet
      </Link>
    </section>
  );
}

function CashoutContent() {
  const cashout = useCashout();
  const request = useRequestPayout();
  const [amount, setAmount] = useState('');
  const [problem, setProblem] = useState('');
  const payoutsId = useId();

  const submit = (event: React.FormEvent) => {
    event.preventDefault();
    setProblem('');
    const cents = amount.trim() ? usdToCents(amount) : undefined;
    if (amount.trim() && (cents === undefined || cents <= 0)) {
      setProblem('Enter an amount in USD greater than 0, or leave it empty to cash out everything.');
      return;
    }
    request.mutate(cents, {
      onSuccess: ({ payout }) => {
        toast.success(`Payout of ${formatCents(payout.amountCents)} requested`);
        setAmount('');
      },
      onError: (error) => setProblem(errorSentence(error, 'The payout could not be requested. Please try again.')),
    });
  };

  return (
    <>
      {cashout.isPending ? (
        <Skeleton height="8rem" />
      ) : cashout.isError ? (
        <ErrorState message="Your cash-out details could not be loaded." onRetry={() => void cashout.refetch()} />
      ) : (
        <>
          <p className="page-lead" aria-live="polite">
            Available to cash out: <strong>{formatCents(cashout.data.availableCents)}</strong>
          </p>
          {cashout.data.payoutsEnabled ? (
            <form className="cashout-form" onSubmit={submit} noValidate>
              <label htmlFor="cashout-amount">Amount (USD, empty for everything)</label>
              <input
                id="cashout-amount"
                className="field-box"
                inputMode="decimal"
                value={amount}
                onChange={(e) => setAmount(e.target.value)}
                placeholder={centsToDecimal(cashout.data.availableCents)}
              />
              {problem && (
                <p role="alert" className="form-error">
                  {problem}
                </p>
              )}
              <button type="submit" className="button" disabled={request.isPending || cashout.data.availableCents <= 0} aria-busy={request.isPending}>
                {request.isPending ? 'Requesting…' : 'Request payout'}
              </button>
            </form>
          ) : (
            <PayoutAccount />
          )}
          <h2 id={payoutsId}>Payouts</h2>
          {cashout.data.requests.length === 0 ? (
            <p>No payouts yet.</p>
          ) : (
            <ul className="cashout-list" aria-labelledby={payoutsId}>
              {cashout.data.requests.map((r) => (
                <li key={r.id}>
                  {new Date(r.createdAt).toLocaleDateString('en-US', { dateStyle: 'medium' })} · {formatCents(r.amountCents)} · {STATUS_LABEL[r.status]}
                </li>
              ))}
            </ul>
          )}
        </>
      )}
    </>
  );
}
