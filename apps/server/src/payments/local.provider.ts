import { createHash, createHmac, randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import Stripe from 'stripe';
import type { Db } from '../db/client.ts';
import { RefundRefusedError, type PaymentProvider, type RefundRequest } from './provider.ts';
import { toPaymentEvent } from './stripe-events.ts';

/**
 * The built-in provider: our own payment page at /pay/<checkout id> (DESIGN.md). Its
 * results are Stripe-format events signed with a secret derived from AUTH_SECRET, and
 * go through the same handler as Stripe's webhooks.
 */
export const LOCAL_CARDS = { succeeds: '4242424242424242', declined: '4000000000000002' } as const;

const webhooks = new Stripe('sk_local_unused').webhooks;

export function localWebhookSecret(authSecret: string): string {
  return `whsec_${createHmac('sha256', authSecret).update('local-payments').digest('base64url')}`;
}

/** Delivers a signed provider event to the shop's handler (the same path as a webhook). */
export type LocalEventSink = (body: Buffer, signature: string) => Promise<unknown>;

export interface LocalProviderOptions {
  /**
   * Test switch LOCAL_REFUND_FAILURES (refused in production by config.ts): the next this many
   * card refunds are accepted and then fail, as Stripe's `refund.failed` does (decision 034).
   */
  refundFailures?: number;
  /** How long after the refund its failure event comes (default 300 ms). */
  refundFailureDelayMs?: number;
}

export function createLocalProvider(
  authSecret: string,
  db?: Db,
  options: LocalProviderOptions = {},
): PaymentProvider & {
  signedEvent(type: string, session: { id: string; checkoutId: string; amountCents: number; paymentIntentId: string }): { body: Buffer; signature: string };
  /** Where this provider's own later events (a refund that fails) go; set once by the orders area. */
  onEvent(sink: LocalEventSink): void;
} {
  const secret = localWebhookSecret(authSecret);
  let failuresLeft = options.refundFailures ?? 0;
  let sink: LocalEventSink | null = null;
  const sign = (payload: string) => ({ body: Buffer.from(payload), signature: webhooks.generateTestHeaderString({ payload, secret }) });
  /** The refund fails after it was accepted: a signed refund.failed a little later, through the webhook's path. */
  const failLater = (refundId: string, request: RefundRequest) => {
    const payload = JSON.stringify({
      id: `evt_local_${randomBytes(12).toString('base64url')}`,
      object: 'event',
      type: 'refund.failed',
      created: Math.floor(Date.now() / 1000),
      data: {
        object: {
          id: refundId,
          object: 'refund',
          amount: request.amountCents,
          currency: 'usd',
          payment_intent: request.paymentIntentId,
          status: 'failed',
          failure_reason: 'expired_or_canceled_card',
          metadata: { orderId: request.orderId, ...(request.refundId ? { refundId: request.refundId, round: String(request.round ?? 1) } : {}) },
        },
      },
    });
    setTimeout(() => {
      const { body, signature } = sign(payload);
      sink?.(body, signature).catch((error: unknown) => console.warn(`The local refund ${refundId}'s failure event could not be applied:`, error));
    }, options.refundFailureDelayMs ?? 300);
  };
  const accepted = (refundId: string, request: RefundRequest) => {
    if (failuresLeft > 0) {
      failuresLeft -= 1;
      failLater(refundId, request);
    }
    return { refundId, status: 'succeeded' as const };
  };
  return {
    name: 'local',
    async createSession(request) {
      return { sessionId: `cs_local_${randomBytes(12).toString('base64url')}`, url: `/pay/${encodeURIComponent(request.checkoutId)}` };
    },
    parseEvent(rawBody, signature) {
      return toPaymentEvent(webhooks.constructEvent(rawBody, signature ?? '', secret));
    },
    async sessionState() {
      // Nothing outside this server knows about a local session: it stays open until it expires.
      return { state: 'open', paymentIntentId: null };
    },
    async expireSession() {
      // The page refuses a checkout that is no longer pending: nothing to close here.
    },
    async refund(request) {
      // Nothing leaves this server: the refund id follows from the key, and (with a database) the
      // refund is recorded once per key across processes, so a retry is the same refund (decision 034).
      if (!Number.isSafeInteger(request.amountCents) || request.amountCents <= 0) throw new RefundRefusedError('A refund must be a positive amount.');
      const refundId = `re_local_${createHash('sha256').update(request.idempotencyKey).digest('base64url').slice(0, 24)}`;
      if (!db) return accepted(refundId, request);
      const inserted = await db.execute(sql`
        INSERT INTO local_refund (idempotency_key, refund_id, payment_intent_id, amount_cents)
        VALUES (${request.idempotencyKey}, ${refundId}, ${request.paymentIntentId}, ${request.amountCents})
        ON CONFLICT DO NOTHING`);
      // No conflict target: the refund id follows from the key, so two calls at once may meet on
      // either unique index (refund_id's is checked first at times), and both mean "same refund".
      const found = await db.execute(sql`SELECT refund_id, payment_intent_id, amount_cents FROM local_refund WHERE idempotency_key = ${request.idempotencyKey}`);
      const first = found.rows[0] as { refund_id: string; payment_intent_id: string; amount_cents: number };
      // As Stripe: the same key with other parameters is an error, not a second refund.
      if (first.payment_intent_id !== request.paymentIntentId || first.amount_cents !== request.amountCents) {
        throw new RefundRefusedError('Keys for idempotent requests can only be used with the same parameters they were first used with.');
      }
      // A switched-on failure belongs to the call that made the refund, not to a repeat of its key.
      return inserted.rowCount ? accepted(first.refund_id, request) : { refundId: first.refund_id, status: 'succeeded' };
    },
    onEvent(handler) {
      sink = handler;
    },
    signedEvent(type, session) {
      const payload = JSON.stringify({
        id: `evt_local_${randomBytes(12).toString('base64url')}`,
        object: 'event',
        type,
        created: Math.floor(Date.now() / 1000),
        data: {
          object: {
            id: session.id,
            object: 'checkout.session',
            payment_status: type === 'checkout.session.completed' ? 'paid' : 'unpaid',
            payment_intent: session.paymentIntentId,
            amount_total: session.amountCents,
            client_reference_id: session.checkoutId,
            metadata: { checkoutId: session.checkoutId },
          },
        },
      });
      return sign(payload);
    },
  };
}
