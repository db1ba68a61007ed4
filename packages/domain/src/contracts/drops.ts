import { z } from 'zod';
import {
  adminDropOutput,
  cancelDropInput,
  dropChallengeOutput,
  dropFairnessOutput,
  dropIdInput,
  dropRefInput,
  dropReportOutput,
  dropStateOutput,
  editDropInput,
  joinDropInput,
  openDropOutput,
  leaveWaitlistByLinkInput,
  notifyMeByEmailInput,
  confirmNotifyMeInput,
  confirmNotifyMeOutput,
  postponeDropInput,
  publicDropOutput,
  scheduleDropInput,
  variantIdInput,
  waitingDemandOutput,
  waitlistEntryOutput,
} from '../drops-schemas.ts';
import { defineContract, noInput } from './define.ts';

/**
 * Fair drops (issue 35, decision 066). Live: topic `drop`, id = the drop's id, with
 * `nowServing` and `status`, once per admission batch and once when the drop closes.
 */
export const dropContracts = {
  /** The label schedules a drop; the server makes the seed and publishes only its SHA-256 (admin). */
  scheduleDrop: defineContract({ access: 'admin', input: scheduleDropInput, output: adminDropOutput }),
  /** Changes a scheduled or postponed drop (admin). */
  editDrop: defineContract({ access: 'admin', input: editDropInput, output: adminDropOutput }),
  /** Cancels a drop; entries are kept and told (admin). */
  cancelDrop: defineContract({ access: 'admin', input: cancelDropInput, output: adminDropOutput }),
  /** Moves a drop's start; entries keep their numbers and are told (admin). */
  postponeDrop: defineContract({ access: 'admin', input: postponeDropInput, output: adminDropOutput }),
  /** Every drop, newest start first (admin). */
  listDrops: defineContract({ access: 'admin', input: noInput, output: z.object({ drops: z.array(adminDropOutput) }) }),
  /** The drop report (admin). */
  getDropReport: defineContract({ access: 'admin', input: dropIdInput, output: dropReportOutput }),
  /** The drop report as CSV text (admin). */
  getDropReportCsv: defineContract({ access: 'admin', input: dropIdInput, output: z.object({ filename: z.string(), csv: z.string() }) }),
  /** Waiting demand per variant across every waitlist (admin). */
  getWaitingDemand: defineContract({ access: 'admin', input: noInput, output: waitingDemandOutput }),

  /** A drop as the drop page shows it, by id or address (public). */
  getDrop: defineContract({ access: 'public', input: dropRefInput, output: publicDropOutput }),
  /** Drops a fan can still meet (scheduled, postponed, live), soonest first, for the shop's links (public). */
  listOpenDrops: defineContract({ access: 'public', input: noInput, output: z.object({ drops: z.array(openDropOutput) }) }),
  /** The public fairness data: commitment, list hash, seed once revealed, the order (public). */
  getDropFairness: defineContract({ access: 'public', input: dropRefInput, output: dropFairnessOutput }),
  /** A proof-of-work challenge to solve before joining (signed in). */
  getDropChallenge: defineContract({ access: 'signed-in', input: dropIdInput, output: dropChallengeOutput }),
  /** Joins the drop's queue, once per account (signed in). */
  joinDrop: defineContract({ access: 'signed-in', input: joinDropInput, output: dropStateOutput }),
  /** The caller's own place in the drop (signed in). */
  getMyDropState: defineContract({ access: 'signed-in', input: dropIdInput, output: dropStateOutput }),
  /** Leaves the queue, or ends the caller's admission (signed in). */
  leaveDrop: defineContract({ access: 'signed-in', input: dropIdInput, output: dropStateOutput }),

  /** Joins a variant's waitlist (signed in). */
  joinWaitlist: defineContract({ access: 'signed-in', input: variantIdInput, output: waitlistEntryOutput }),
  /** Leaves a variant's waitlist (signed in). */
  leaveWaitlist: defineContract({ access: 'signed-in', input: variantIdInput, output: z.object({ ok: z.literal(true) }) }),
  /** Leaves a waitlist from the mail's link (public, the token is the proof). */
  leaveWaitlistByLink: defineContract({ access: 'public', input: leaveWaitlistByLinkInput, output: z.object({ ok: z.literal(true) }) }),
  /**
   * Notify me without an account (issue 37 part 4, decision 076): the same list, for an address
   * confirmed by a mailed link. The same answer for any address (public; rate limited).
   */
  notifyMeByEmail: defineContract({ access: 'public', input: notifyMeByEmailInput, output: z.object({ ok: z.literal(true) }) }),
  /** The notify-me mail's link: the address goes on the list (public, the token is the proof). */
  confirmNotifyMe: defineContract({ access: 'public', input: confirmNotifyMeInput, output: confirmNotifyMeOutput }),
  /** The caller's waitlists (signed in). */
  getMyWaitlists: defineContract({ access: 'signed-in', input: noInput, output: z.object({ entries: z.array(waitlistEntryOutput) }) }),
};
