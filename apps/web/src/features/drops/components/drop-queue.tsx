import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { DROP_MESSAGES, estimatedWaitSeconds, positionFromSeed } from '@storefront/domain/drops.ts';
import { errorSentence } from '../../../lib/error-message.ts';
import { useHydrated } from '../../../lib/hydration.ts';
import { paths } from '../../../lib/paths.ts';
import { dropKeys } from '../../../lib/query-keys.ts';
import { Link } from '../../../lib/router.tsx';
import { getDropChallenge, spreadOut, useJoinDrop, useLeaveDrop, useMyDropState, type DropState, type PublicDrop } from '../api/drops.ts';
import { DropWaitlist } from './drop-waitlist.tsx';
import { useBuyNow } from './use-buy-now.ts';
import { formatCountdown, formatWait, useDropClock } from './use-drop-clock.ts';

/** The drop page's sentences (issue 35): the tests read the same constants. */
export const DROP_PAGE_TEXTS = {
  join: 'Join the queue',
  checking: "Checking you're not a bot…",
  joining: 'Joining…',
  preQueue: (n: number) => `You're in the queue (entry ${n}). Everyone who joined before the start is shuffled fairly at the start; your place shows then.`,
  postponedKept: (n: number) => `Your entry ${n} keeps its place for the new start.`,
  cancelledKept: (n: number) => `Your entry ${n} was kept; nothing more happens in this drop.`,
  position: (ahead: number) => (ahead === 0 ? 'You are next.' : ahead === 1 ? '1 fan ahead of you.' : `${ahead} fans ahead of you.`),
  youreIn: (left: string) => `You're in: ${left} to check out`,
  checkout: 'Check out now',
  leave: 'Leave the queue',
  leaveAdmission: 'Leave (give my turn to the next fan)',
  left: 'You left the queue for this drop.',
  bought: 'You bought in this drop. Thank you!',
  joinFailed: 'Could not join the queue.',
} as const;

/** How often at most a changing position is spoken (WCAG: polite, not every second). */
const ANNOUNCE_EVERY_MS = 30_000;

/**
 * A polite live region's text: a new state (joined, admitted, sold out) is spoken at once; the
 * same state's changing figure (the position) at most every ANNOUNCE_EVERY_MS, its latest value.
 */
function usePoliteAnnouncement(state: string, text: string): string {
  const [spoken, setSpoken] = useState(text);
  const last = useRef({ state, at: 0 });
  useEffect(() => {
    const now = Date.now();
    if (state !== last.current.state || now - last.current.at >= ANNOUNCE_EVERY_MS) {
      last.current = { state, at: now };
      setSpoken(text);
      return undefined;
    }
    const timer = setTimeout(
      () => {
        last.current = { state, at: Date.now() };
        setSpoken(text);
      },
      ANNOUNCE_EVERY_MS - (now - last.current.at),
    );
    return () => clearTimeout(timer);
  }, [state, text]);
  return spoken;
}

type Entry = NonNullable<DropState['entry']>;

/** The signed-in fan's place: join (with the proof-of-work), wait, be admitted, buy or leave. */
export function DropQueue({ drop, status, nowServing, queueOpen }: { drop: PublicDrop; status: PublicDrop['status']; nowServing: number; queueOpen: boolean }) {
  const queryClient = useQueryClient();
  const mine = useMyDropState(drop.id, true);
  const entry = mine.data?.entry ?? null;
  const position = entry?.position ?? null;

  // A new status reads the fan's place once; at the start the page computes it from the revealed
  // seed instead (decision 073): the whole queue learns its places without asking.
  const seenStatus = useRef(status);
  const { seed, preQueueCount } = drop;
  const entryNumber = entry?.status === 'waiting' && entry.position === null ? entry.number : null;
  useEffect(() => {
    if (seenStatus.current === status) return;
    seenStatus.current = status;
    if (status === 'live' && entryNumber !== null && seed !== null && preQueueCount !== null) {
      void positionFromSeed(seed, preQueueCount, entryNumber).then((placed) =>
        queryClient.setQueryData(dropKeys.mine(drop.id), (old: DropState | undefined) =>
          old?.entry && old.entry.position === null ? { ...old, dropStatus: 'live' as const, entry: { ...old.entry, position: placed } } : old,
        ),
      );
      return;
    }
    spreadOut(() => void queryClient.invalidateQueries({ queryKey: dropKeys.mine(drop.id) }));
  }, [status, queryClient, drop.id, entryNumber, seed, preQueueCount]);
  // "Now serving" reached the fan's position: their admission is there to read, once.
  const reached = entry?.status === 'waiting' && position !== null && nowServing >= position;
  useEffect(() => {
    if (reached) void queryClient.invalidateQueries({ queryKey: dropKeys.mine(drop.id) });
  }, [reached, queryClient, drop.id]);

  const ahead = entry?.status === 'waiting' && position !== null && status === 'live' ? Math.max(0, position - nowServing - 1) : null;
  const [phase, text] = describe(drop, status, entry, ahead);
  const spoken = usePoliteAnnouncement(phase, text);

  let body;
  if (mine.isPending) body = <p>Looking for your place…</p>;
  else if (mine.isError) body = <p role="alert">{errorSentence(mine.error, 'Could not read your place in the queue.')}</p>;
  else if (!entry) body = <JoinPanel drop={drop} status={status} queueOpen={queueOpen} />;
  else if (entry.status === 'admitted' && entry.expiresAt) body = <AdmittedPanel drop={drop} entry={entry} serverTime={mine.data.serverTime} />;
  else if (status === 'sold-out' || entry.status === 'closed') body = <DropWaitlist drop={drop} />;
  else if (entry.status === 'waiting') body = <WaitingPanel drop={drop} status={status} entry={entry} ahead={ahead} nowServing={nowServing} />;
  else if (entry.status === 'bought')
    body = (
      <p>
        {DROP_PAGE_TEXTS.bought} <Link to={paths.myOrders}>See My Orders</Link>
      </p>
    );
  else body = <p>{entry.status === 'left' ? DROP_PAGE_TEXTS.left : DROP_MESSAGES.admissionEnded}</p>;

  return (
    <div className="drop__panel" data-testid="drop-panel">
      {body}
      <p className="visually-hidden" aria-live="polite" data-testid="drop-announcer">
        {spoken}
      </p>
    </div>
  );
}

/** The state the announcer speaks, and its words. */
function describe(drop: PublicDrop, status: PublicDrop['status'], entry: Entry | null, ahead: number | null): [string, string] {
  if (status === 'cancelled') return ['cancelled', DROP_MESSAGES.cancelled];
  if (status === 'postponed') return ['postponed', DROP_MESSAGES.postponed];
  if (!entry) return [status === 'sold-out' ? 'sold-out' : 'none', status === 'sold-out' ? DROP_MESSAGES.soldOut : ''];
  if (entry.status === 'admitted') return ['admitted', `You're in. You have ${Math.round(drop.checkoutWindowSeconds / 60)} minutes to check out.`];
  if (status === 'sold-out' || entry.status === 'closed') return ['sold-out', DROP_MESSAGES.soldOut];
  if (entry.status === 'waiting') return ahead === null ? ['pre-queue', DROP_PAGE_TEXTS.preQueue(entry.number)] : ['waiting', DROP_PAGE_TEXTS.position(ahead)];
  if (entry.status === 'bought') return ['bought', DROP_PAGE_TEXTS.bought];
  return [entry.status, entry.status === 'left' ? DROP_PAGE_TEXTS.left : DROP_MESSAGES.admissionEnded];
}

function JoinPanel({ drop, status, queueOpen }: { drop: PublicDrop; status: PublicDrop['status']; queueOpen: boolean }) {
  const join = useJoinDrop(drop.id);
  const ready = useHydrated();
  const [phase, setPhase] = useState<'idle' | 'checking' | 'joining'>('idle');
  const [problem, setProblem] = useState('');
  if (status === 'cancelled') return null;
  if (status === 'sold-out') return <DropWaitlist drop={drop} />;
  if (!queueOpen) return <p>{DROP_MESSAGES.queueNotOpen}</p>;

  const onJoin = async () => {
    setProblem('');
    try {
      let payload: string | undefined;
      if (drop.challenge) {
        setPhase('checking');
        const { solveDropChallenge } = await import('../solve-challenge.ts');
        payload = await solveDropChallenge(await getDropChallenge(drop.id));
      }
      setPhase('joining');
      await join.mutateAsync(payload);
    } catch (error) {
      setProblem(errorSentence(error, DROP_PAGE_TEXTS.joinFailed));
    } finally {
      setPhase('idle');
    }
  };

  return (
    <div>
      <button type="button" className="button drop__join" onClick={() => void onJoin()} disabled={!ready || phase !== 'idle'} aria-describedby="drop-join-status">
        {DROP_PAGE_TEXTS.join}
      </button>
      <p id="drop-join-status" role="status" className="drop__progress">
        {phase === 'checking' ? DROP_PAGE_TEXTS.checking : phase === 'joining' ? DROP_PAGE_TEXTS.joining : ''}
      </p>
      <p role="alert" className="drop__problem">
        {problem}
      </p>
    </div>
  );
}

function LeaveButton({ drop, label }: { drop: PublicDrop; label: string }) {
  const leave = useLeaveDrop(drop.id);
  return (
    <>
      <button type="button" className="button button--secondary" disabled={leave.isPending} onClick={() => leave.mutate()}>
        {label}
      </button>
      {leave.isError ? (
        <p role="alert" className="drop__problem">
          {errorSentence(leave.error, 'Could not leave the queue.')}
        </p>
      ) : null}
    </>
  );
}

function WaitingPanel({ drop, status, entry, ahead, nowServing }: { drop: PublicDrop; status: PublicDrop['status']; entry: Entry; ahead: number | null; nowServing: number }) {
  let what;
  if (status === 'cancelled') what = <p>{DROP_PAGE_TEXTS.cancelledKept(entry.number)}</p>;
  else if (status === 'postponed') what = <p>{DROP_PAGE_TEXTS.postponedKept(entry.number)}</p>;
  else if (ahead === null || entry.position === null) what = <p data-testid="drop-prequeue">{DROP_PAGE_TEXTS.preQueue(entry.number)}</p>;
  else
    what = (
      <div className="drop__position">
        <p>
          Your place: <strong data-testid="drop-position">{entry.position}</strong>{' '}
          <span className="drop__hint">
            (entry {entry.number}, now serving {nowServing})
          </span>
        </p>
        <p data-testid="drop-ahead">{DROP_PAGE_TEXTS.position(ahead)}</p>
        <p>Estimated wait: {formatWait(estimatedWaitSeconds(entry.position, nowServing, drop.admissionsPerMinute))}.</p>
      </div>
    );
  return (
    <>
      {what}
      {status !== 'cancelled' ? <LeaveButton drop={drop} label={DROP_PAGE_TEXTS.leave} /> : null}
    </>
  );
}

function AdmittedPanel({ drop, entry, serverTime }: { drop: PublicDrop; entry: Entry; serverTime: string }) {
  const queryClient = useQueryClient();
  const now = useDropClock(serverTime, true);
  const left = Date.parse(entry.expiresAt!) - now;
  const buy = useBuyNow();
  const ended = left <= 0;
  useEffect(() => {
    if (ended) void queryClient.invalidateQueries({ queryKey: dropKeys.mine(drop.id) });
  }, [ended, queryClient, drop.id]);
  const available = drop.items.filter((item) => item.unitsLeft === null || item.unitsLeft > 0);
  return (
    <div className="drop__admitted">
      <p className="drop__youre-in" data-testid="drop-youre-in">
        {DROP_PAGE_TEXTS.youreIn(formatCountdown(left))}
      </p>
      <p className="drop__hint">Up to {drop.perCustomerLimit} per customer. Your turn is yours until the time is up, even if you close this page.</p>
      <div className="drop__actions">
        {available.length === 1 ? (
          <button type="button" className="button" onClick={() => buy(available[0]!)}>
            {DROP_PAGE_TEXTS.checkout}
          </button>
        ) : (
          available.map((item) => (
            <button key={item.variantId} type="button" className="button" onClick={() => buy(item)}>
              Buy {item.name}
            </button>
          ))
        )}
        <LeaveButton drop={drop} label={DROP_PAGE_TEXTS.leaveAdmission} />
      </div>
    </div>
  );
}
