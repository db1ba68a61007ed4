import { useState } from 'react';
import { formatUsd } from '@storefront/domain/catalog.ts';
import { GIFT_CARD_STATES, type GiftCardState } from '@storefront/domain/gift-card-schemas.ts';
import { GIFT_CARD_STATE_LABELS } from '@storefront/domain/gift-cards.ts';
import { errorSentence } from '../../../lib/error-message.ts';
import { paths } from '../../../lib/paths.ts';
import { Link } from '../../../lib/router.tsx';
import { DataTable } from '../../../ui/data-table.tsx';
import { useGiftCards, useResendGiftCard, type GiftCardRow } from '../api/gift-cards.ts';
import { LoadState } from './load-state.tsx';

const shortDate = (iso: string | null) => (iso ? new Date(iso).toLocaleString('en-US', { dateStyle: 'medium', timeStyle: 'short' }) : '—');

/** When the card last changed: sold, redeemed or voided (a pending card: when its checkout began). */
const lastChange = (card: GiftCardRow) => card.voidedAt ?? card.redeemedAt ?? card.activatedAt ?? card.createdAt;

/**
 * The gift cards that exist (issue 40 item 3): sold, waiting for their payment, redeemed or
 * voided, with recipient and buyer; a sold card's mail can be sent again (the same code).
 */
export function GiftCardsList() {
  const [status, setStatus] = useState<GiftCardState | null>(null);
  const cards = useGiftCards(status);
  const resend = useResendGiftCard();
  const [announcement, setAnnouncement] = useState('');
  const [problem, setProblem] = useState('');

  return (
    <section className="console-gift-cards" aria-labelledby="gift-cards-title">
      <h3 id="gift-cards-title">Gift cards</h3>
      <label htmlFor="gift-card-state">Show</label>{' '}
      <select id="gift-card-state" value={status ?? ''} onChange={(event) => setStatus((event.target.value || null) as GiftCardState | null)}>
        <option value="">All gift cards</option>
        {GIFT_CARD_STATES.map((state) => (
          <option key={state} value={state}>
            {GIFT_CARD_STATE_LABELS[state]}
          </option>
        ))}
      </select>
      <p role="status" className="visually-hidden">
        {announcement}
      </p>
      <p role="alert" className="console-discounts__problem">
        {problem}
      </p>
      {cards.isPending || cards.isError ? (
        <LoadState query={cards} label="Loading gift cards…" lines={3} failed="Could not load the gift cards." />
      ) : cards.data.cards.length === 0 ? (
        <p className="console__hint">{status ? `No gift cards that are ${GIFT_CARD_STATE_LABELS[status].toLowerCase()}.` : 'No gift cards yet.'}</p>
      ) : (
        <div className="console-discounts__scroll" role="region" aria-label="Gift cards" tabIndex={0}>
          <DataTable
            caption={cards.data.more ? 'Gift cards (the newest 500)' : 'Gift cards'}
            rows={cards.data.cards}
            rowKey={(card) => card.id}
            columns={[
              { header: 'Amount', rowHeader: true, cell: (card) => formatUsd(card.amountCents) },
              { header: 'State', cell: (card) => <span data-testid="gift-card-state">{GIFT_CARD_STATE_LABELS[card.status]}</span> },
              { header: 'Recipient', cell: (card) => card.recipientEmail },
              { header: 'Bought by', cell: (card) => card.buyerEmail ?? 'Deleted account' },
              { header: 'Order', cell: (card) => (card.orderId ? <Link to={paths.releaseOrder(card.orderId)}>{card.orderId}</Link> : '—') },
              { header: 'Since', cell: (card) => shortDate(lastChange(card)) },
              { header: 'Mailed', cell: (card) => shortDate(card.mailedAt) },
              {
                header: 'Mail',
                cell: (card) =>
                  card.status === 'active' ? (
                    <button
                      type="button"
                      className="button button--secondary button--small"
                      disabled={resend.isPending}
                      onClick={() =>
                        resend.mutate(card.id, {
                          onSuccess: () => {
                            setProblem('');
                            setAnnouncement(`The ${formatUsd(card.amountCents)} gift card's mail is on its way to ${card.recipientEmail} again.`);
                          },
                          onError: (error) => setProblem(errorSentence(error, 'Could not send the mail again.')),
                        })
                      }
                    >
                      Send again <span className="visually-hidden">to {card.recipientEmail}</span>
                    </button>
                  ) : (
                    '—'
                  ),
              },
            ]}
          />
        </div>
      )}
    </section>
  );
}
