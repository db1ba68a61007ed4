import { useId, type ReactNode } from 'react';
import { formatCount, formatDollars } from '@storefront/domain/wallet.ts';
import type { Wallet } from '../api/get-wallet.ts';
import { formatCents, formatCredits, formatTokenUsd } from '../wallet-format.ts';

/** The wallet's figures (spec sections 2 and 9), one card each, formatted for people. */
export function WalletTotals({ wallet }: { wallet: Wallet }) {
  const titleId = useId();
  return (
    <section className="wallet-section" aria-labelledby={titleId}>
      <h2 id={titleId} className="visually-hidden">
        Totals
      </h2>
      <ul className="wallet-totals">
        <TotalCard
          label="Balance"
          value={formatCents(wallet.balanceCents)}
          // Read out when a credit arrives while the page is open.
          live
          details={[formatCredits(wallet.balanceCredits), wallet.heldCents > 0 ? `${formatCents(wallet.heldCents)} on hold for pending orders` : null]}
        />
        <TotalCard label="Credits total" value={formatCount(wallet.creditsTotal)} details={['Current and earned credits']} />
        <TotalCard
          label="Earnings"
          value={formatDollars(wallet.earningsUsd)}
          details={['From streams and sales', `Earned-credit share: ${formatCredits(wallet.earnedCreditShare)}`]}
        />
        <TotalCard label="Token value" value={formatTokenUsd(wallet.tokenValueUsd)} details={[`Per token · utility price ${formatCents(wallet.utilityPriceCents)}`]} />
        <TotalCard label="Claimable tokens" value={formatCount(wallet.claimableTokens)} details={[`Worth ${formatDollars(wallet.claimableUsd)}`]} />
        <TotalCard label="Reward tokens" value={formatCount(wallet.rewardTokens)} details={[wallet.rewards > 0 ? `${formatCount(wallet.rewards)} rewards from activity` : null]} />
      </ul>
    </section>
  );
}

interface TotalCardProps {
  label: string;
  value: string;
  details: (ReactNode | null)[];
  live?: boolean;
}

function TotalCard({ label, value, details, live = false }: TotalCardProps) {
  const labelId = useId();
  return (
    <li className="wallet-card" aria-labelledby={labelId}>
      <h3 id={labelId} className="wallet-card__label">
        {label}
      </h3>
      <p className="wallet-card__value" aria-live={live ? 'polite' : undefined}>
        {value}
      </p>
      {details.map((detail, index) =>
        detail === null ? null : (
          <p key={index} className="wallet-card__detail">
            {detail}
          </p>
        ),
      )}
    </li>
  );
}
