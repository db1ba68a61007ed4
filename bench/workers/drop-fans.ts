// Simulated fans of a drop (bench/sections/drop.ts): each fan holds one live stream
// (GET /api/live?topics=drop, as the drop page does) from its own loopback address, solves
// the join's proof-of-work with altcha-lib, joins, learns its position once the drop starts,
// computes its position from the start event's revealed seed (decision 073: the page asks
// nobody; a worker computes the order once for its fans, as each fan's browser would for itself),
// follows "now serving" from the stream, and when admitted buys (quote, then a wallet-only
// order), presses Leave, or lets the admission run out. Every arrival of a `drop` event is
// noted (wall-clock ms, comparable across processes) for the position-update latency.
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { solveChallenge } from 'altcha-lib/v1';
import { fairOrder, positionOf } from '../../packages/domain/src/drops.ts';

export interface FanSpec {
  token: string;
  /** The fan's own client address (127.x.y.z): the join limit is per account and per address. */
  ip: string;
  /** What the fan does: joins and leaves before the start, or acts when admitted. */
  plan: 'buy' | 'leave-before-start' | 'leave-when-admitted' | 'let-expire';
}

export interface PurchaseSpec {
  items: unknown[];
  contact: unknown;
  shipping: unknown;
  runId: string;
}

export type FansCommand =
  | { setup: { host: string; port: number; dropId: string; fans: FanSpec[]; purchase: PurchaseSpec; joinConcurrency: number; expireWithinMs: number } }
  | { join: true }
  | { leaveBeforeStart: true }
  | { collect: { references: Record<string, number> } }
  | { close: true };

export interface FansStats {
  streamsOpened: number;
  streamsFailed: number;
  joined: number;
  joinFailures: Record<string, number>;
  left: number;
  admitted: number;
  bought: number;
  purchaseFailures: Record<string, number>;
  letExpire: number;
  leftWhenAdmitted: number;
  soldOutSeen: number;
  /** Fans whose first state after the start named their position. */
  positionsLearned: number;
  calls: number;
  callFailures: number;
}

export type FansReply =
  | { ready: true }
  | { joined: FansStats }
  | { left: number }
  | { collected: FansStats & { histogram: number[]; samples: number; steadyHistogram: number[]; steadySamples: number; unmatched: number; streamsOpenAtEnd: number } }
  | { error: string };

const now = () => performance.timeOrigin + performance.now();

interface DropState {
  dropStatus: string;
  nowServing: number;
  entry: { number: number; position: number | null; status: string; admission: string | null } | null;
}

interface Fan extends FanSpec {
  index: number;
  agent: http.Agent;
  stream?: http.ClientRequest;
  /** The entry number joinDrop gave. */
  number: number | null;
  position: number | null;
  phase: 'new' | 'joined' | 'learning' | 'waiting' | 'admitted' | 'done';
}

let settings: Extract<FansCommand, { setup: unknown }>['setup'];
const fans: Fan[] = [];
/** Per event key (`live:<nowServing>` or `sold-out:<nowServing>`): arrival times across every stream. */
const arrivals = new Map<string, number[]>();
const stats: FansStats = {
  streamsOpened: 0,
  streamsFailed: 0,
  joined: 0,
  joinFailures: {},
  left: 0,
  admitted: 0,
  bought: 0,
  purchaseFailures: {},
  letExpire: 0,
  leftWhenAdmitted: 0,
  soldOutSeen: 0,
  positionsLearned: 0,
  calls: 0,
  callFailures: 0,
};
let startedAt = 0;
/** The fair order, computed once from the start event's seed: what every fan's page computes. */
let order: Promise<number[]> | undefined;
const agents = new Map<string, http.Agent>();

const count = (table: Record<string, number>, key: string) => (table[key] = (table[key] ?? 0) + 1);

function agentFor(ip: string): http.Agent {
  let agent = agents.get(ip);
  if (!agent) {
    agent = new http.Agent({ keepAlive: true, maxSockets: 4, localAddress: ip });
    agents.set(ip, agent);
  }
  return agent;
}

/** POST /fn/<name> through nginx from the fan's address; resolves with the answer's data or throws its message. */
function call<T>(fan: Fan, name: string, data: unknown): Promise<T> {
  stats.calls += 1;
  const body = JSON.stringify({ data });
  return new Promise<T>((resolve, reject) => {
    const request = http.request(
      {
        host: settings.host,
        port: settings.port,
        path: `/fn/${name}`,
        method: 'POST',
        agent: fan.agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), authorization: `Bearer ${fan.token}` },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => {
          let parsed: { data?: T; error?: { message?: string } } = {};
          try {
            parsed = JSON.parse(text) as typeof parsed;
          } catch {
            // nginx's own error page
          }
          if (response.statusCode === 200 && parsed.data !== undefined) resolve(parsed.data);
          else {
            stats.callFailures += 1;
            reject(new Error(`${name} ${response.statusCode}: ${parsed.error?.message ?? text.slice(0, 80)}`));
          }
        });
      },
    );
    request.on('error', (error) => {
      stats.callFailures += 1;
      reject(error);
    });
    request.end(body);
  });
}

function closeStream(fan: Fan) {
  fan.stream?.destroy();
  fan.stream = undefined;
}

interface DropEvent {
  nowServing: number;
  status: string | null;
  seed?: string;
  preQueueCount?: number;
}

/** The fan's place from the revealed seed and its number, as the page computes it; then it follows "now serving". */
async function place(fan: Fan, data: DropEvent) {
  order ??= fairOrder(
    data.seed!,
    Array.from({ length: data.preQueueCount! }, (_, index) => index + 1),
  );
  fan.position = positionOf(await order, data.preQueueCount!, fan.number!);
  if (fan.position === null) {
    fan.phase = 'done';
    return;
  }
  stats.positionsLearned += 1;
  fan.phase = 'waiting';
  if (lastServing >= fan.position) {
    fan.phase = 'learning';
    void refresh(fan);
  }
}

/** The highest "now serving" heard by any fan of this worker. */
let lastServing = 0;

function onDropEvent(fan: Fan, data: DropEvent, at: number) {
  lastServing = Math.max(lastServing, data.nowServing);
  const key = `${data.status === 'sold-out' ? 'sold-out' : 'live'}:${data.nowServing}`;
  let list = arrivals.get(key);
  if (!list) arrivals.set(key, (list = []));
  list.push(at);
  if (data.status === 'sold-out') {
    stats.soldOutSeen += 1;
    fan.phase = 'done';
    closeStream(fan);
    return;
  }
  if (data.status !== 'live') return;
  if (fan.phase === 'joined') {
    // The drop started: the page computes its own position (decision 073); without the seed it asks once.
    fan.phase = 'learning';
    if (data.seed !== undefined && data.preQueueCount !== undefined && fan.number !== null) void place(fan, data);
    else void refresh(fan);
  } else if (fan.phase === 'waiting' && fan.position !== null && data.nowServing >= fan.position) {
    fan.phase = 'learning';
    void refresh(fan);
  }
}

/** The fan's own state: its position, or its admission. */
async function refresh(fan: Fan) {
  let state: DropState;
  try {
    state = await call<DropState>(fan, 'getMyDropState', { dropId: settings.dropId });
  } catch {
    fan.phase = fan.position === null ? 'joined' : 'waiting';
    return;
  }
  const entry = state.entry;
  if (fan.position === null && entry?.position) {
    fan.position = entry.position;
    stats.positionsLearned += 1;
  }
  if (entry?.status === 'admitted') {
    fan.phase = 'admitted';
    stats.admitted += 1;
    void act(fan);
  } else if (entry?.status === 'waiting') {
    fan.phase = 'waiting';
    // Served meanwhile (an event that arrived while this answer was on its way): ask again.
    if (fan.position !== null && state.nowServing >= fan.position) {
      fan.phase = 'learning';
      setTimeout(() => void refresh(fan), 200);
    }
  } else {
    fan.phase = 'done';
    closeStream(fan);
  }
}

async function act(fan: Fan) {
  // Once admitted, the page leaves the queue's stream for the checkout.
  closeStream(fan);
  let plan = fan.plan;
  // Letting an admission run out costs a whole window: only fans admitted early do it, so the run ends.
  if (plan === 'let-expire' && now() - startedAt > settings.expireWithinMs) plan = 'buy';
  if (plan === 'let-expire') {
    stats.letExpire += 1;
    fan.phase = 'done';
    return;
  }
  if (plan === 'leave-when-admitted') {
    await call(fan, 'leaveDrop', { dropId: settings.dropId }).catch(() => undefined);
    stats.leftWhenAdmitted += 1;
    fan.phase = 'done';
    return;
  }
  const { items, contact, shipping, runId } = settings.purchase;
  try {
    const quote = await call<Record<string, number>>(fan, 'quoteCheckout', { items, useWallet: true });
    const reviewed = {
      subtotalCents: quote.subtotalCents,
      shippingCents: quote.shippingCents,
      taxCents: quote.taxCents,
      walletAppliedCents: quote.walletAppliedCents,
      totalCents: quote.totalCents,
    };
    await call(fan, 'completeWalletOnlyOrderStreetFlavor', { items, contact, shipping, quote: reviewed, checkoutId: `drop-${runId}-${fan.index}` });
    stats.bought += 1;
  } catch (error) {
    count(stats.purchaseFailures, String(error instanceof Error ? error.message : error).slice(0, 120));
  }
  fan.phase = 'done';
}

function openStream(fan: Fan): Promise<void> {
  return new Promise((resolve, reject) => {
    let ready = false;
    let buffer = '';
    const request = http.get(
      {
        host: settings.host,
        port: settings.port,
        path: '/api/live?topics=drop',
        agent: false,
        localAddress: fan.ip,
        headers: { accept: 'text/event-stream', authorization: `Bearer ${fan.token}` },
      },
      (response) => {
        if (response.statusCode !== 200) {
          reject(new Error(`GET /api/live answered ${response.statusCode}`));
          response.resume();
          return;
        }
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          const at = now();
          buffer += chunk;
          let split: number;
          while ((split = buffer.indexOf('\n\n')) >= 0) {
            const block = buffer.slice(0, split);
            buffer = buffer.slice(split + 2);
            const event = /^event: (.*)$/m.exec(block)?.[1];
            if (event === 'ready' && !ready) {
              ready = true;
              resolve();
            } else if (event === 'drop') {
              const line = /^data: (.*)$/m.exec(block)?.[1];
              if (line) onDropEvent(fan, JSON.parse(line) as DropEvent, at);
            }
          }
        });
      },
    );
    request.on('error', (error) => {
      if (!ready) reject(error);
    });
    fan.stream = request;
  });
}

async function joinOne(fan: Fan) {
  try {
    await openStream(fan);
    stats.streamsOpened += 1;
  } catch {
    stats.streamsFailed += 1;
  }
  try {
    const challenge = await call<{ algorithm: string; challenge: string; maxnumber?: number; salt: string; signature: string }>(fan, 'getDropChallenge', {
      dropId: settings.dropId,
    });
    const solution = await solveChallenge(challenge.challenge, challenge.salt, challenge.algorithm, challenge.maxnumber).promise;
    if (!solution) throw new Error('challenge not solved');
    const payload = Buffer.from(
      JSON.stringify({ algorithm: challenge.algorithm, challenge: challenge.challenge, number: solution.number, salt: challenge.salt, signature: challenge.signature }),
    ).toString('base64');
    const joined = await call<DropState>(fan, 'joinDrop', { dropId: settings.dropId, challenge: payload });
    fan.number = joined.entry?.number ?? null;
    stats.joined += 1;
    fan.phase = 'joined';
  } catch (error) {
    count(stats.joinFailures, String(error instanceof Error ? error.message : error).slice(0, 120));
    fan.phase = 'done';
    closeStream(fan);
  }
}

async function joinAll() {
  let next = 0;
  const lanes = Array.from({ length: settings.joinConcurrency }, async () => {
    while (next < fans.length) await joinOne(fans[next++]!);
  });
  await Promise.all(lanes);
}

/**
 * Arrival minus commit, in ms, of every drop event this worker's streams received: all of them,
 * and apart the steady state (every batch but the two said to every page at once: the start's,
 * the earliest "live" one, and sold out's).
 */
function latencyHistogram(references: Record<string, number>) {
  const histogram: number[] = [];
  const steady: number[] = [];
  let samples = 0;
  let steadySamples = 0;
  let unmatched = 0;
  const live = Object.keys(references).filter((key) => key.startsWith('live:'));
  const startKey = live.reduce<string | undefined>((first, key) => (first === undefined || references[key]! < references[first]! ? key : first), undefined);
  for (const [key, times] of arrivals) {
    const reference = references[key];
    if (reference === undefined) {
      unmatched += times.length;
      continue;
    }
    const isSteady = key !== startKey && key.startsWith('live:');
    for (const at of times) {
      const ms = Math.max(0, Math.round(at - reference));
      histogram[ms] = (histogram[ms] ?? 0) + 1;
      samples += 1;
      if (isSteady) {
        steady[ms] = (steady[ms] ?? 0) + 1;
        steadySamples += 1;
      }
    }
  }
  return { histogram: Array.from(histogram, (n) => n ?? 0), samples, steadyHistogram: Array.from(steady, (n) => n ?? 0), steadySamples, unmatched };
}

process.on('message', (command: FansCommand) => {
  const reply = (message: FansReply) => process.send!(message);
  const fail = (error: unknown) => reply({ error: String(error instanceof Error ? (error.stack ?? error.message) : error) });
  if ('setup' in command) {
    settings = command.setup;
    for (const [index, spec] of command.setup.fans.entries()) fans.push({ ...spec, index, agent: agentFor(spec.ip), number: null, position: null, phase: 'new' });
    reply({ ready: true });
  } else if ('join' in command) {
    joinAll().then(() => reply({ joined: stats }), fail);
  } else if ('leaveBeforeStart' in command) {
    const leaving = fans.filter((fan) => fan.plan === 'leave-before-start' && fan.phase === 'joined');
    Promise.all(
      leaving.map(async (fan) => {
        await call(fan, 'leaveDrop', { dropId: settings.dropId });
        stats.left += 1;
        fan.phase = 'done';
        closeStream(fan);
      }),
    ).then(() => {
      startedAt = now();
      reply({ left: leaving.length });
    }, fail);
  } else if ('collect' in command) {
    const open = fans.filter((fan) => fan.stream).length;
    reply({ collected: { ...stats, ...latencyHistogram(command.collect.references), streamsOpenAtEnd: open } });
  } else {
    for (const fan of fans) closeStream(fan);
    for (const agent of agents.values()) agent.destroy();
    process.exit(0);
  }
});
