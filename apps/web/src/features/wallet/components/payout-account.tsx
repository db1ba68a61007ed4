import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { WALLET_MESSAGES } from '@storefront/domain/wallet.ts';
import { toast } from '../../../lib/toast.ts';
import { cashoutQueryOptions, openPayoutOnboarding, useCashout } from '../api/payouts.ts';

/** Connect or finish the payout account (Stripe Connect, or the local test onboarding). */
export function PayoutAccount() {
  const cashout = useCashout();
  const queryClient = useQueryClient();
  const [opening, setOpening] = useState(false);
  const connect = async () => {
    setOpening(true);
    try {
      await openPayoutOnboarding();
      // The account exists now: this page offers to finish its setup rather than to connect one.
      void queryClient.invalidateQueries({ queryKey: cashoutQueryOptions().queryKey });
    } catch {
      toast.error(WALLET_MESSAGES.stripeFailed);
    } finally {
      setOpening(false);
    }
  };
  if (cashout.isPending) return <p className="wallet-settings__text">Loading your payout account…</p>;
  const enabled = cashout.data?.payoutsEnabled ?? false;
  return (
    <>
      <p className="wallet-settings__text">
        {enabled
          ? 'Your payout account is ready: you can cash out your earnings.'
          : cashout.data?.hasAccount
            ? 'Finish setting up your payout account to cash out.'
            : 'Connect a payout account to cash out your earnings.'}
      </p>
      {!enabled && (
        <button type="button" className="button" onClick={() => void connect()} disabled={opening} aria-busy={opening}>
          {cashout.data?.hasAccount ? 'Finish payout setup' : 'Connect payout account'}
        </button>
      )}
    </>
  );
}
