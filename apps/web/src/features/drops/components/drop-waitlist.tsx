import { useState } from 'react';
import { DROP_MESSAGES } from '@storefront/domain/drops.ts';
import { errorSentence } from '../../../lib/error-message.ts';
import { useMyWaitlists, useWaitlistMutation, type PublicDrop, type WaitlistEntry } from '../api/drops.ts';
import { useBuyNow } from './use-buy-now.ts';
import { formatMoment } from './use-drop-clock.ts';

export const WAITLIST_TEXTS = {
  join: (name: string) => `Join the waitlist for ${name}`,
  leave: (name: string) => `Leave the waitlist for ${name}`,
  place: (place: number | null) => (place ? `You are on the waitlist: place ${place}.` : 'You are on the waitlist.'),
  offered: (name: string, until: string) => `A unit of ${name} is kept for you until ${until}.`,
  buy: 'Buy it now',
} as const;

/** While the fan waits for a unit, the page looks for an offer this often (the mail tells them too). */
const OFFER_POLL_MS = 10_000;

/**
 * Sold out: the drop's demand becomes a waitlist per variant (decision 066). A unit that comes
 * back is offered to the next fan in join order, by mail and here, with its own window.
 */
export function DropWaitlist({ drop }: { drop: PublicDrop }) {
  const items = drop.items.filter((item) => item.unitsLeft !== null);
  const [waiting, setWaiting] = useState(false);
  const lists = useMyWaitlists(true, waiting ? OFFER_POLL_MS : false);
  const mine = new Map((lists.data ?? []).map((entry) => [entry.variantId, entry]));
  const anyWaiting = items.some((item) => mine.get(item.variantId)?.status === 'waiting');
  if (anyWaiting !== waiting) setWaiting(anyWaiting);
  return (
    <div className="drop__sold-out">
      <p className="drop__sold-out-title" data-testid="drop-sold-out">
        {DROP_MESSAGES.soldOut}
      </p>
      <p className="drop__hint">Units that come back (an unpaid hold, a restock) go to the waitlist in order: each fan is told by email and here, with time to buy.</p>
      {lists.isError ? <p role="alert">{errorSentence(lists.error, 'Could not read your waitlists.')}</p> : null}
      <ul className="drop__waitlist">
        {items.map((item) => (
          <WaitlistItem key={item.variantId} item={item} entry={mine.get(item.variantId)} loading={lists.isPending} />
        ))}
      </ul>
    </div>
  );
}

function WaitlistItem({ item, entry, loading }: { item: PublicDrop['items'][number]; entry: WaitlistEntry | undefined; loading: boolean }) {
  const join = useWaitlistMutation('join');
  const leave = useWaitlistMutation('leave');
  const buy = useBuyNow();
  const problem = join.error ?? leave.error;
  let body;
  if (entry?.status === 'offered' && entry.offerExpiresAt)
    body = (
      <>
        <p className="drop__offer" data-testid="waitlist-offer">
          {WAITLIST_TEXTS.offered(item.name, formatMoment(entry.offerExpiresAt))}
        </p>
        <button type="button" className="button" onClick={() => buy(item)}>
          {WAITLIST_TEXTS.buy}
        </button>
      </>
    );
  else if (entry?.status === 'waiting')
    body = (
      <>
        <p data-testid="waitlist-place">{WAITLIST_TEXTS.place(entry.place)}</p>
        <button type="button" className="button button--secondary" disabled={leave.isPending} onClick={() => leave.mutate(item.variantId)}>
          {WAITLIST_TEXTS.leave(item.name)}
        </button>
      </>
    );
  else
    body = (
      <button type="button" className="button" disabled={loading || join.isPending} onClick={() => join.mutate(item.variantId)}>
        {WAITLIST_TEXTS.join(item.name)}
      </button>
    );
  return (
    <li className="drop__waitlist-item">
      <p className="drop__waitlist-name">{item.name}</p>
      {body}
      {problem ? (
        <p role="alert" className="drop__problem">
          {errorSentence(problem, 'Could not change the waitlist.')}
        </p>
      ) : null}
      {join.isSuccess && entry?.status === 'waiting' ? (
        <p role="status" className="visually-hidden">
          {DROP_MESSAGES.waitlistJoined}
        </p>
      ) : null}
    </li>
  );
}
