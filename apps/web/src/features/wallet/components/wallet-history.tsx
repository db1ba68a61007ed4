import { Link } from '../../../lib/router.tsx';
import { paths } from '../../../lib/paths.ts';
import { useWalletHistory, type WalletHistoryEntry } from '../api/list-wallet-history.ts';
import { GIFT_CARD_HISTORY_NOTE } from '@storefront/domain/wallet.ts';
import { formatCents } from '../wallet-format.ts';
import { DataTable } from '../../../ui/data-table.tsx';
import { LoadMoreButton } from '../../../ui/load-more-button.tsx';

export const WALLET_HISTORY_TEXTS = {
  title: 'History',
  empty: 'No wallet activity yet.',
  loadFailed: 'Your wallet history could not be loaded.',
} as const;

/**
 * What each line means to the owner (issue 29 item 7): a credit, a purchase (paid from the
 * wallet at once, or the wallet part of a card payment), a refund, or a hold while its card
 * payment is open. The server leaves out releases and closed holds.
 */
const KIND_LABELS: Record<WalletHistoryEntry['kind'], string> = {
  grant: 'Credit',
  refund: 'Refund',
  debit: 'Paid from wallet',
  hold: 'On hold for a card payment',
  capture: 'Paid from wallet',
  release: 'Hold released',
};

const dateTime = new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeStyle: 'short' });

/** The line's meaning; a redeemed gift card (issue 27) says so instead of "Credit". */
function whatText(entry: WalletHistoryEntry): string {
  return entry.kind === 'grant' && entry.note === GIFT_CARD_HISTORY_NOTE ? GIFT_CARD_HISTORY_NOTE : KIND_LABELS[entry.kind];
}

/** "+$10.00", "-$5.00"; a capture moves no spendable credit, so it shows what left the hold. */
function amountText(entry: WalletHistoryEntry): string {
  const cents = entry.kind === 'capture' ? entry.heldCents : entry.amountCents;
  return `${cents > 0 ? '+' : cents < 0 ? '-' : ''}${formatCents(Math.abs(cents))}`;
}

/** Credits, purchases, refunds and open holds, newest first, a page at a time (live). */
export function WalletHistory() {
  const history = useWalletHistory();
  const entries = history.data?.pages.flatMap((page) => page.entries) ?? [];
  return (
    <section className="wallet-history" aria-labelledby="wallet-history-title">
      <h2 id="wallet-history-title">{WALLET_HISTORY_TEXTS.title}</h2>
      {history.isPending ? (
        <p role="status">Loading your wallet history…</p>
      ) : history.isError && entries.length === 0 ? (
        <div className="wallet-history__failed">
          <p role="alert">{WALLET_HISTORY_TEXTS.loadFailed}</p>
          <button type="button" className="button button--secondary" onClick={() => void history.refetch()}>
            Retry
          </button>
        </div>
      ) : entries.length === 0 ? (
        <p>{WALLET_HISTORY_TEXTS.empty}</p>
      ) : (
        <>
          {/* Scrolls sideways on a phone: focusable, so a keyboard can scroll it too (axe: scrollable-region-focusable). */}
          <div className="wallet-history__scroll" tabIndex={0} role="group" aria-labelledby="wallet-history-title">
            <DataTable
              className="wallet-history__table"
              rows={entries}
              rowKey={(entry) => entry.id}
              columns={[
                { header: 'Date', cell: (entry) => dateTime.format(new Date(entry.createdAt)) },
                { header: 'What', cell: whatText },
                { header: 'Amount', className: 'wallet-history__money', cell: amountText },
                {
                  header: 'Order',
                  cell: (entry) => (entry.order ? <Link to={paths.myOrder(entry.order.id)}>Order {entry.order.id}</Link> : '—'),
                },
                { header: 'Balance', className: 'wallet-history__money', cell: (entry) => formatCents(entry.balanceCents) },
              ]}
            />
          </div>
          <LoadMoreButton pages={history} label="Show older entries" />
          {history.isFetchNextPageError ? <p role="alert">{WALLET_HISTORY_TEXTS.loadFailed}</p> : null}
        </>
      )}
    </section>
  );
}
