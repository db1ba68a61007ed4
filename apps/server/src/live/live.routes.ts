import { randomBytes } from 'node:crypto';
import type { OutgoingHttpHeaders } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Caller } from '../functions/registry.ts';
import type { ResolvedSession } from '../accounts/auth.routes.ts';
import type { LiveHub } from './live.hub.ts';
import { ACCOUNT_CHANGED, INTERNAL_TOPICS, SESSION_ENDED, SESSION_EXPIRY, type LiveEvent } from './live.publish.ts';

const HEARTBEAT_MS = 25_000;
/** How many recent events each process keeps to replay to a client that reconnects. */
export const REPLAY_EVENTS = 1000;
const LAST_EVENT_ID = /^([a-z0-9]{1,16})-(\d{1,15})$/;

/** May this caller see this event? Each client gets only the topics it may see. */
export function mayReceive(caller: Caller | null, event: LiveEvent): boolean {
  switch (event.topic) {
    case 'products':
    case 'content':
    case 'drop':
      return true;
    case 'all-orders':
    case 'admin':
      return Boolean(caller?.isAdmin);
    case 'profile':
    case 'wallet':
    case 'orders':
      return caller !== null && caller.userId === event.userId;
    case SESSION_ENDED:
    case SESSION_EXPIRY:
    case ACCOUNT_CHANGED:
      return false;
  }
}

interface OpenStream {
  sessionId: string | null;
  /** The signed-in account, whose rights were decided when the stream opened. */
  userId: string | null;
  end(): void;
  /** Closes the stream at this time (now, if it has passed). */
  closeAt(expiresAt: Date): void;
}

/** Longest setTimeout delay Node keeps (about 24.8 days); a later expiry is checked again then. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * `GET /api/live`: Server-Sent Events; the client refetches what an event names.
 *
 * A stream is authorised when it opens and stays so only while its session lives
 * (decision 020): the database announces every session that ends (sign-out, revocation,
 * password reset, deleted account) on the live channel itself, in commit order with every
 * other event, so each process closes that session's streams before any later private
 * event can reach them; a timer closes a stream when its session expires. The client
 * reconnects as whoever it is now and refetches. The same holds for an account's rights
 * (decision 042): a change of role, email or verification closes its streams, so a revoked
 * admin stops receiving admin topics as soon as the revocation commits.
 */
export async function liveRoutes(
  app: FastifyInstance,
  options: {
    hub: LiveHub;
    resolveSession: (request: FastifyRequest) => Promise<ResolvedSession | null>;
    /** The session's expiry as it is now (null: gone), without extending it: an open stream is not activity. */
    sessionExpiresAt: (sessionId: string) => Promise<Date | null>;
    /** Receives a reader of the id of the last event sent: a page that embeds it lets its stream resume from there (decision 062). */
    position?: (read: () => string) => void;
    /** A filter per stream for what may wait (a drop's "now serving" for a fan far back, decision 066): the events it refuses are not sent. */
    pace?: (userId: string | null) => ((event: LiveEvent) => boolean) | undefined;
  },
) {
  const { hub, resolveSession, sessionExpiresAt } = options;
  const open = new Set<OpenStream>();
  // Streams still being authorised, and what happened to sessions meanwhile: ended (null) or a new expiry.
  const opening = new Set<Map<string, number | null>>();
  // Streams still being authorised, and the accounts whose rights changed meanwhile.
  const changedWhileOpening = new Set<Set<string>>();
  // Streams never finish on their own: end them so shutdown does not wait for them.
  app.addHook('preClose', async () => {
    for (const stream of open) stream.end();
  });
  // Event ids (decision 029): `<this process's epoch>-<sequence>`. The last REPLAY_EVENTS
  // events are kept, so a client that reconnects with Last-Event-ID gets what it missed
  // (its topics, what it may see); one whose id is from another process, too old, or from
  // before notifications were lost gets `event: resync` and refetches everything.
  const epoch = randomBytes(6).toString('hex');
  let sequence = 0;
  options.position?.(() => `${epoch}-${sequence}`);
  /**
   * An event's SSE frame, made once per event and sequence and written to every stream that may
   * receive it (a drop's batch goes to every open page: 6,667 streams per instance in the bench).
   * A stock event carries the units left (decision 067); a drop event its now serving and status
   * (decision 066) and, once started, the revealed seed and pre-queue size (decision 073): added
   * fields, older clients ignore them.
   */
  const frames = new WeakMap<LiveEvent, { sequence: number | undefined; frame: string }>();
  function frameOf(event: LiveEvent, sequence: number | undefined): string {
    const kept = frames.get(event);
    if (kept && kept.sequence === sequence) return kept.frame;
    const idLine = sequence === undefined ? '' : `id: ${epoch}-${sequence}\n`;
    const data =
      event.topic === 'drop'
        ? {
            id: event.id ?? null,
            nowServing: event.nowServing ?? 0,
            status: event.status ?? null,
            ...(event.seed ? { seed: event.seed, preQueueCount: event.preQueueCount ?? 0 } : {}),
          }
        : event.stock
          ? { id: event.id ?? null, stock: event.stock }
          : { id: event.id ?? null };
    const frame = `${idLine}event: ${event.topic}\ndata: ${JSON.stringify(data)}\n\n`;
    frames.set(event, { sequence, frame });
    return frame;
  }
  let lastGapAt = 0;
  const recent: { sequence: number; event: LiveEvent }[] = [];
  const sequenceOf = new WeakMap<LiveEvent, number>();
  const unsubscribe = hub.subscribe((event) => {
    if (!INTERNAL_TOPICS.has(event.topic)) {
      sequence += 1;
      sequenceOf.set(event, sequence);
      recent.push({ sequence, event });
      if (recent.length > REPLAY_EVENTS) recent.shift();
    }
    if (event.topic === ACCOUNT_CHANGED && event.userId) {
      for (const changed of changedWhileOpening) changed.add(event.userId);
      for (const stream of open) if (stream.userId === event.userId) stream.end();
      return;
    }
    if (!event.id) return;
    if (event.topic === SESSION_ENDED) {
      for (const changes of opening) changes.set(event.id, null);
      for (const stream of open) if (stream.sessionId === event.id) stream.end();
    } else if (event.topic === SESSION_EXPIRY && typeof event.expiresAt === 'number') {
      for (const changes of opening) if (changes.get(event.id) !== null) changes.set(event.id, event.expiresAt);
      for (const stream of open) if (stream.sessionId === event.id) stream.closeAt(new Date(event.expiresAt));
    }
  });
  // Notifications were missed, a session's end among them perhaps: every client reconnects,
  // is authorised anew and refetches what it shows.
  let gaps = 0;
  const unsubscribeGaps = hub.onMissedEvents(() => {
    gaps += 1;
    lastGapAt = sequence;
    for (const stream of open) stream.end();
  });
  app.addHook('onClose', async () => {
    unsubscribe();
    unsubscribeGaps();
  });

  /** The events after `lastEventId` to send again, or null when they cannot be known (resync). */
  function missedSince(lastEventId: string | undefined): { sequence: number; event: LiveEvent }[] | null {
    const match = lastEventId ? LAST_EVENT_ID.exec(lastEventId) : null;
    if (!match || match[1] !== epoch) return null;
    const seen = Number(match[2]);
    if (seen > sequence || (lastGapAt > 0 && seen <= lastGapAt)) return null;
    const oldestKept = recent[0]?.sequence ?? sequence + 1;
    // Everything after `seen` must still be kept.
    if (seen + 1 < oldestKept) return null;
    return recent.filter((entry) => entry.sequence > seen);
  }

  app.get<{ Querystring: { topics?: string; lastEventId?: string } }>('/api/live', async (request, reply) => {
    // Listening before the session is read: a change committed after that read is heard.
    const changes = new Map<string, number | null>();
    const changedAccounts = new Set<string>();
    const gapsBefore = gaps;
    opening.add(changes);
    changedWhileOpening.add(changedAccounts);
    let session: ResolvedSession | null;
    try {
      session = await resolveSession(request);
    } finally {
      opening.delete(changes);
      changedWhileOpening.delete(changedAccounts);
    }
    const change = session ? changes.get(session.sessionId) : undefined;
    if (change === null) session = null;
    else if (session && change !== undefined && change < session.expiresAt.getTime()) session = { ...session, expiresAt: new Date(change) };
    const signedIn = session?.caller ? { caller: session.caller, sessionId: session.sessionId, expiresAt: session.expiresAt } : null;
    const caller = signedIn?.caller ?? null;
    const wanted = new Set((request.query.topics ?? '').split(',').filter(Boolean));
    // The headers the hooks set (CORS for a listed origin, Vary, security headers) go out
    // with the head this route writes itself (decision 041).
    const hookHeaders: OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) hookHeaders[name] = value;
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, {
      ...hookHeaders,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    const sends = (event: LiveEvent) => (wanted.size === 0 || wanted.has(event.topic)) && mayReceive(caller, event);
    const write = (event: LiveEvent, eventSequence: number | undefined) => res.write(frameOf(event, eventSequence));
    // EventSource sends Last-Event-ID when it reconnects; a client that opens a new
    // EventSource (ours, to back off) passes it as ?lastEventId=.
    const headerId = request.headers['last-event-id'];
    const lastEventId = (Array.isArray(headerId) ? headerId[0] : headerId) ?? request.query.lastEventId;
    // Synchronous from here to the subscription: no event can fall between replay and live.
    const missed = lastEventId === undefined ? [] : missedSince(lastEventId);
    if (missed === null) res.write(`event: resync\ndata: ${JSON.stringify({ reason: 'The events since your last one are not known here: refetch what you show.' })}\n\n`);
    for (const entry of missed ?? []) if (sends(entry.event)) write(entry.event, entry.sequence);
    const ready = { signedIn: caller !== null, isAdmin: caller?.isAdmin ?? false, resumed: lastEventId !== undefined && missed !== null };
    res.write(`retry: 2000\nid: ${epoch}-${sequence}\nevent: ready\ndata: ${JSON.stringify(ready)}\n\n`);
    const pace = options.pace?.(caller?.userId ?? null);
    const unsubscribeStream = hub.subscribe((event) => {
      if (sends(event) && (!pace || pace(event))) write(event, sequenceOf.get(event));
    });
    const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), HEARTBEAT_MS);
    let expiry: NodeJS.Timeout | undefined;
    const stream: OpenStream = {
      sessionId: signedIn?.sessionId ?? null,
      userId: caller?.userId ?? null,
      end() {
        clearInterval(heartbeat);
        clearTimeout(expiry);
        unsubscribeStream();
        open.delete(stream);
        res.end();
      },
      // At the session's expiry: extended meanwhile (by the page's calls), wait for the new expiry; else close.
      closeAt(expiresAt) {
        clearTimeout(expiry);
        if (expiresAt.getTime() <= Date.now()) return stream.end();
        expiry = setTimeout(
          () => {
            if (!open.has(stream) || !stream.sessionId) return;
            sessionExpiresAt(stream.sessionId).then(
              (now) => (now && now.getTime() > Date.now() ? stream.closeAt(now) : stream.end()),
              () => stream.end(),
            );
          },
          Math.min(expiresAt.getTime() - Date.now(), MAX_TIMER_MS),
        );
        expiry.unref();
      },
    };
    open.add(stream);
    request.raw.on('close', () => stream.end());
    if (signedIn) stream.closeAt(signedIn.expiresAt);
    // Notifications were lost, or the account's rights changed, while this stream was being
    // authorised: it starts again too.
    if (gaps !== gapsBefore || (caller !== null && changedAccounts.has(caller.userId))) stream.end();
  });
}
