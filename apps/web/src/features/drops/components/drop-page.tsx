import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { formatUsd } from '@storefront/domain/catalog.ts';
import { DROP_MESSAGES } from '@storefront/domain/drops.ts';
import { FunctionsError } from '@storefront/sdk/callable.ts';
import { usePageTitle } from '../../../lib/page-title.ts';
import { paths } from '../../../lib/paths.ts';
import { dropKeys } from '../../../lib/query-keys.ts';
import { onDropEvent } from '../../../lib/live.ts';
import { Link, useLocation, useParams } from '../../../lib/router.tsx';
import { useSession } from '../../../lib/session.ts';
import { Badge } from '../../../ui/badge.tsx';
import { BackToShop } from '../../../ui/back-to-shop.tsx';
import { DetailLoading, DetailNotFound } from '../../../ui/detail-page.tsx';
import { ErrorState } from '../../../ui/error-state.tsx';
import { ProductImage } from '../../../ui/product-image.tsx';
import { spreadOut, useDropPage, type PublicDrop } from '../api/drops.ts';
import { DropQueue } from './drop-queue.tsx';
import { formatCountdown, formatMoment, useDropClock } from './use-drop-clock.ts';
import './drops.css';

const STATUS_LABEL: Record<PublicDrop['status'], string> = {
  scheduled: 'Scheduled',
  live: 'Live',
  'sold-out': 'Sold out',
  cancelled: 'Cancelled',
  postponed: 'Postponed',
};

/**
 * The fan's drop page, /drops/:slug (issue 35, decision 069): the drop's items, the countdown to
 * the start, the commitment to the seed, and the fan's own place in the queue. Server-rendered
 * with its data; the queue then moves by the live "now serving" events alone.
 */
export function DropPage() {
  const { slug = '' } = useParams();
  const drop = useDropPage(slug);
  usePageTitle(drop.data ? drop.data.name : drop.isError ? 'Drop not found' : null);
  if (drop.isPending) return <DetailLoading page="drop-page" label="Loading the drop…" layout="drop" line={{ width: '40%', height: '1.5rem' }} />;
  if (drop.isError) {
    if (drop.error instanceof FunctionsError && drop.error.code === 'not-found')
      return (
        <DetailNotFound page="drop-page" title="Drop not found" lead={DROP_MESSAGES.notFound}>
          <BackToShop />
        </DetailNotFound>
      );
    return (
      <section className="page drop-page">
        <ErrorState title="Could not load the drop." message="Please check your connection and try again." onRetry={() => void drop.refetch()} headingLevel={1} />
      </section>
    );
  }
  return <DropView drop={drop.data} />;
}

/** Keeps the drop's "now serving" and status from the live events; a change of status other than the start reads the drop again. */
function useLiveDrop(drop: PublicDrop) {
  const queryClient = useQueryClient();
  // What the events said since the drop was read; the read's own figures count too.
  const [heard, setHeard] = useState<{ nowServing: number; status: PublicDrop['status'] | null }>({ nowServing: 0, status: null });
  useEffect(
    () =>
      onDropEvent((data) => {
        if (data === null) {
          // The stream reopened without the missed events: read the drop and the fan's place once.
          setHeard((current) => ({ ...current, status: null }));
          void queryClient.invalidateQueries({ queryKey: dropKeys.page(drop.slug) });
          void queryClient.invalidateQueries({ queryKey: dropKeys.mine(drop.id) });
          return;
        }
        if (data.id !== drop.id) return;
        setHeard((current) => {
          const status = (data.status as PublicDrop['status'] | null | undefined) ?? current.status;
          const nowServing = Math.max(current.nowServing, data.nowServing ?? 0);
          if (status !== current.status) {
            // The start says what the page needs (the revealed seed, the pre-queue's size): every
            // open page at once, so none asks (decision 073). Other changes read the drop again, spread out.
            const started = status === 'live' && data.seed !== undefined && data.preQueueCount !== undefined;
            if (started)
              queryClient.setQueryData(dropKeys.page(drop.slug), (old: PublicDrop | undefined) =>
                old ? { ...old, status, seed: data.seed!, preQueueCount: data.preQueueCount!, nowServing: Math.max(old.nowServing, nowServing) } : old,
              );
            else spreadOut(() => void queryClient.invalidateQueries({ queryKey: dropKeys.page(drop.slug) }));
          } else if (status === 'scheduled' || status === 'postponed') {
            // Before the start no batch is announced: an event is the label's edit (a new start, limit, name).
            spreadOut(() => void queryClient.invalidateQueries({ queryKey: dropKeys.page(drop.slug) }));
          }
          return { nowServing, status };
        });
      }),
    [queryClient, drop.id, drop.slug],
  );
  return { nowServing: Math.max(drop.nowServing, heard.nowServing), status: heard.status ?? drop.status };
}

function DropView({ drop }: { drop: PublicDrop }) {
  const live = useLiveDrop(drop);
  const status = live.status;
  const beforeStart = status === 'scheduled' || status === 'postponed';
  const now = useDropClock(drop.serverTime, beforeStart);
  const untilStart = Date.parse(drop.startsAt) - now;
  const untilQueue = Date.parse(drop.queueOpensAt) - now;

  return (
    <section className="page drop-page" aria-labelledby="drop-title">
      <p className="drop-page__kicker">
        <Badge tone={status === 'live' ? 'success' : status === 'sold-out' || status === 'cancelled' ? 'danger' : 'pending'}>{STATUS_LABEL[status]}</Badge> Drop
      </p>
      <h1 id="drop-title">{drop.name}</h1>
      <div className="drop">
        <ul className="drop__items" aria-label="In this drop">
          {drop.items.map((item) => (
            <li key={item.variantId} className="drop__item">
              {item.image ? <ProductImage url={item.image} alt="" sizes="96px" className="drop__item-image" /> : null}
              <div>
                <Link to={paths.product(item.productId)} className="drop__item-name">
                  {item.name}
                </Link>
                <p className="drop__item-price">{formatUsd(item.priceCents)}</p>
                {item.unitsLeft !== null && status !== 'cancelled' ? (
                  <p className="drop__item-left">{item.unitsLeft > 0 ? `${item.unitsLeft} left` : DROP_MESSAGES.soldOut}</p>
                ) : null}
              </div>
            </li>
          ))}
        </ul>
        <div className="drop__info">
          {status === 'cancelled' ? (
            <p className="drop__notice" role="status">
              {DROP_MESSAGES.cancelled} {drop.note}
            </p>
          ) : null}
          {status === 'postponed' ? (
            <p className="drop__notice" role="status">
              {DROP_MESSAGES.postponed} {drop.note}
            </p>
          ) : null}
          {beforeStart ? (
            <div className="drop__countdown">
              <p>
                Starts <time dateTime={drop.startsAt}>{formatMoment(drop.startsAt)}</time>
              </p>
              <p className="drop__clock" aria-hidden={untilStart > 0 ? undefined : true}>
                {untilStart > 0 ? (
                  <>
                    <span className="visually-hidden">Starts in </span>
                    <span data-testid="drop-countdown">{formatCountdown(untilStart)}</span>
                  </>
                ) : (
                  'Starting…'
                )}
              </p>
              <p className="drop__hint">
                {untilQueue > 0 ? (
                  <>
                    The queue opens <time dateTime={drop.queueOpensAt}>{formatMoment(drop.queueOpensAt)}</time>. Everyone who joins before the start is shuffled fairly at the
                    start; later arrivals queue in join order.
                  </>
                ) : (
                  'The queue is open. Everyone who joins before the start is shuffled fairly at the start; later arrivals queue in join order.'
                )}
              </p>
            </div>
          ) : null}
          <p className="drop__rules">
            {drop.perCustomerLimit} per customer. Once admitted you have {Math.round(drop.checkoutWindowSeconds / 60)} minutes to check out.
          </p>
          <DropFan drop={drop} status={status} nowServing={live.nowServing} queueOpen={untilQueue <= 0} />
          <details className="drop__proof">
            <summary>How the order is kept fair</summary>
            <p>
              The shop committed to a secret seed when it scheduled this drop. Its SHA-256 is below; at the start the shop publishes the entry list&apos;s hash, then reveals the
              seed, and the order is the entries sorted by HMAC-SHA256(seed, entry number). Anyone can check it.
            </p>
            <p className="drop__hash">
              Commitment (SHA-256 of the seed): <code data-testid="drop-commitment">{drop.seedHash}</code>
            </p>
            <Link to={paths.dropFairness(drop.slug)}>Check the fairness of this drop</Link>
          </details>
        </div>
      </div>
    </section>
  );
}

/** The fan's part: sign in, or their place in the queue. */
function DropFan({ drop, status, nowServing, queueOpen }: { drop: PublicDrop; status: PublicDrop['status']; nowServing: number; queueOpen: boolean }) {
  const session = useSession();
  const { pathname } = useLocation();
  if (session.isLoading) return <p className="drop__panel">Checking your account…</p>;
  if (!session.isSignedIn) {
    return (
      <div className="drop__panel">
        <p>A drop is bound to accounts: one place in the queue per account.</p>
        <Link to={paths.login} state={{ from: pathname }} className="button">
          Sign in to join
        </Link>
      </div>
    );
  }
  return <DropQueue drop={drop} status={status} nowServing={nowServing} queueOpen={queueOpen} />;
}
