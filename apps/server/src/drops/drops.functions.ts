import type { Config } from '../config.ts';
import { defineFunction, type CallableFunction } from '../functions/registry.ts';
import { rateLimitSubject } from '../http/client-address.ts';
import { makeChallenge } from './drop-challenge.ts';
import { advanceDrop, announceDrop, dropFairness, joinDrop, leaveDrop, myDropState, type QueueDeps } from './drop-queue.service.ts';
import { dropReport, reportCsv } from './drop-report.service.ts';
import { changeDropStatus, editDrop, getPublicDrop, listDrops, listOpenDrops, requireDrop, scheduleDrop } from './drops.service.ts';
import { joinWaitlist, leaveWaitlist, myWaitlists, waitingDemand } from './waitlist.service.ts';

const secretsOf = (config: Config) => [config.AUTH_SECRET, ...config.AUTH_SECRET_PREVIOUS];

/** A round right after a join, a leave or a purchase: its failure is logged, the timer's next round catches up. */
async function roundAfter(deps: QueueDeps, dropId: string, log: { warn(object: object, message: string): void }): Promise<void> {
  await advanceDrop(deps, dropId).catch((error: unknown) => log.warn({ err: error, dropId }, 'drop admission round failed'));
}

/** A drop just scheduled (its automatic announcement, decision 079; app.ts hands this over). */
export type OnDropScheduled = (drop: { id: string; name: string; slug: string; startsAt: string }) => Promise<void>;

/** The drop's callable functions (issue 35, decision 066). */
export function dropFunctions(onScheduled?: OnDropScheduled): CallableFunction[] {
  const queueDeps = (context: { db: QueueDeps['db']; config: Config }): QueueDeps => ({
    db: context.db,
    secrets: secretsOf(context.config),
    challengeCost: context.config.DROP_CHALLENGE_COST,
    joinsPerAddress: context.config.DROP_JOINS_PER_ADDRESS,
  });
  return [
    defineFunction('scheduleDrop', async (input, { db, caller, log }) => {
      const view = await scheduleDrop(db, { userId: caller.userId }, input);
      // The drop is scheduled whatever becomes of its announcement.
      await onScheduled?.(view).catch((error: unknown) => log.warn({ err: error, dropId: view.id }, 'automatic announcement of a drop failed'));
      return view;
    }),
    defineFunction('editDrop', async (input, { db, caller }) => {
      // Open pages count down to the start they read: a new start (or anything else) is told to them.
      const view = await editDrop(db, { userId: caller.userId }, input);
      await announceDrop(db, view);
      return view;
    }),
    defineFunction('cancelDrop', async ({ dropId, note }, { db, caller }) => {
      const view = await changeDropStatus(db, { userId: caller.userId }, dropId, { to: 'cancelled', note });
      await announceDrop(db, view);
      return view;
    }),
    defineFunction('postponeDrop', async ({ dropId, startsAt, queueOpensAt, note }, { db, caller }) => {
      const view = await changeDropStatus(db, { userId: caller.userId }, dropId, { to: 'postponed', startsAt, queueOpensAt, note });
      await announceDrop(db, view);
      return view;
    }),
    defineFunction('listDrops', async (_input, { db }) => ({ drops: await listDrops(db) })),
    defineFunction('getDropReport', async ({ dropId }, { db }) => dropReport(db, dropId)),
    defineFunction('getDropReportCsv', async ({ dropId }, { db }) => {
      const report = await dropReport(db, dropId);
      const drop = await requireDrop(db, { dropId });
      return { filename: `drop-${drop.slug}-report.csv`, csv: reportCsv(report) };
    }),
    defineFunction('getWaitingDemand', async (_input, { db }) => waitingDemand(db)),
    defineFunction('getDrop', async (input, { db }) => getPublicDrop(db, input)),
    defineFunction('listOpenDrops', async (_input, { db }) => ({ drops: await listOpenDrops(db) })),
    defineFunction('getDropFairness', async (input, { db }) => dropFairness(db, input)),
    defineFunction('getDropChallenge', async ({ dropId }, { db, config }) => {
      const drop = await requireDrop(db, { dropId });
      return makeChallenge(config.AUTH_SECRET, drop.id, config.DROP_CHALLENGE_COST);
    }),
    defineFunction('joinDrop', async (input, context) => {
      const deps = queueDeps(context);
      const state = await joinDrop(deps, context.caller.userId, rateLimitSubject(context.ip), input);
      if (state.dropStatus !== 'live') return state;
      await roundAfter(deps, input.dropId, context.log);
      return myDropState(context.db, context.caller.userId, input.dropId);
    }),
    defineFunction('getMyDropState', async ({ dropId }, { db, caller }) => myDropState(db, caller.userId, dropId)),
    defineFunction('leaveDrop', async ({ dropId }, context) => {
      const state = await leaveDrop(context.db, context.caller.userId, dropId);
      if (state.dropStatus === 'live') await roundAfter(queueDeps(context), dropId, context.log);
      return state;
    }),
    defineFunction('joinWaitlist', async ({ variantId }, { db, caller }) => joinWaitlist(db, caller.userId, variantId)),
    defineFunction('leaveWaitlist', async ({ variantId }, { db, caller }) => {
      await leaveWaitlist(db, caller.userId, variantId);
      return { ok: true as const };
    }),
    defineFunction('getMyWaitlists', async (_input, { db, caller }) => myWaitlists(db, caller.userId)),
  ];
}
