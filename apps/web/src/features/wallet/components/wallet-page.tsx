import { lazy, Suspense } from 'react';
import { Link } from '../../../lib/router.tsx';
import { useSession } from '../../../lib/session.ts';
import { ErrorState } from '../../../ui/error-state.tsx';
import { LoadingRegion, Skeleton, SkeletonCards } from '../../../ui/skeleton.tsx';
import { useWallet } from '../api/get-wallet.ts';
import { WALLET_TEXTS } from '../wallet-format.ts';
import { LoginRedirect } from './login-redirect.tsx';
import { OwnedDats } from './owned-dats.tsx';
import { WalletHistory } from './wallet-history.tsx';
import { WalletSettings } from './wallet-settings.tsx';
import { WalletTotals } from './wallet-totals.tsx';
import './wallet.css';
import { paths } from '../../../lib/paths.ts';

// Loaded after the page (issue 27): keeps /wallet's first load within its budget.
const RedeemGiftCard = lazy(() => import('./redeem-gift-card.tsx').then((module) => ({ default: module.RedeemGiftCard })));

/** Wallet (spec section 2): totals, owned DATs, Cash Out and Wallet Settings; live. */
export function WalletPage() {
  const session = useSession();
  if (!session.isLoading && !session.user) return <LoginRedirect from={paths.wallet} />;
  return (
    <section className="page wallet-page">
      <div className="wallet-page__header">
        <h1>Wallet</h1>
        <div className="wallet-page__actions">
          <Link to={paths.cashout} className="button">
            Cash Out
          </Link>
          <WalletSettings />
        </div>
      </div>
      {session.user ? <WalletContent /> : <WalletLoading />}
    </section>
  );
}

function WalletContent() {
  const wallet = useWallet();
  if (wallet.isPending) return <WalletLoading />;
  // A failed live refetch keeps the figures already shown; only a first load that fails shows the error.
  if (!wallet.data) {
    return <ErrorState title={WALLET_TEXTS.loadFailed} message={WALLET_TEXTS.tryAgain} onRetry={() => void wallet.refetch()} />;
  }
  return (
    <>
      <WalletTotals wallet={wallet.data} />
      <Suspense fallback={null}>
        <RedeemGiftCard />
      </Suspense>
      <OwnedDats dats={wallet.data.ownedDats} />
      <WalletHistory />
    </>
  );
}

function WalletLoading() {
  return (
    <LoadingRegion label="Loading your wallet…">
      <div className="wallet-totals">
        <SkeletonCards count={6} className="wallet-card">
          <Skeleton width="50%" height="1rem" />
          <Skeleton width="70%" height="2rem" />
          <Skeleton width="60%" height="0.9rem" />
        </SkeletonCards>
      </div>
      <Skeleton width="10rem" height="1.75rem" className="wallet-section-skeleton" />
      <div className="tile-grid dat-grid">
        <SkeletonCards count={4} className="tile dat-card">
          <Skeleton aspectRatio="1 / 1" width="100%" />
          <Skeleton width="80%" />
          <Skeleton width="50%" />
        </SkeletonCards>
      </div>
    </LoadingRegion>
  );
}
