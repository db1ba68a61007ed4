/**
 * The card payment provider behind one small interface: `local` (our own hosted page
 * for offline use and tests) and `stripe` (Checkout Sessions). Both report results as
 * signed events to the same handler.
 */
export interface PaymentSessionRequest {
  checkoutId: string;
  chargeCents: number;
  walletAppliedCents: number;
  /** A discount code's part (issue 27): the lines then no longer add up to the charge. */
  discountCents?: number;
  lines: { name: string; qty: number; unitCents: number }[];
  shippingCents: number;
  taxCents: number;
  cardFeeCents: number;
  customerEmail: string;
  expiresAt: Date;
}

export interface PaymentSession {
  sessionId: string;
  url: string;
}

/** What a verified provider event means for a checkout (or, for `refunded` and `refund-failed`, for a paid order). */
export interface PaymentEvent {
  eventId: string;
  type: 'succeeded' | 'failed' | 'expired' | 'refunded' | 'refund-failed' | 'dispute' | 'ignored';
  checkoutId: string | null;
  sessionId: string | null;
  paymentIntentId: string | null;
  amountCents: number | null;
  /** `refunded`: everything refunded on the charge so far (Stripe's amount_refunded). */
  refundedCents?: number | null;
  /** `refund-failed`: the provider's refund that failed after it was accepted (decision 034). */
  refund?: {
    /** The provider's refund id (re_...). */
    id: string;
    /** Stripe's event type, for the record of processed events. */
    eventType: string;
    amountCents: number;
    /** Stripe's failure_reason code, if any. */
    failureReason: string | null;
    /** Our refund and card round, from the metadata we sent; null for a refund made elsewhere or before they were sent. */
    refundId: string | null;
    round: number | null;
  };
  /** `dispute`: a card dispute opened, changed or closed (Stripe's charge.dispute.*, decision 075). */
  dispute?: {
    id: string;
    /** Stripe's status: needs_response, under_review, won, lost, ... */
    status: string;
    amountCents: number;
    closed: boolean;
  };
}

/** Gives card money back; the same idempotency key never refunds twice (decision 028). */
export interface RefundRequest {
  paymentIntentId: string;
  amountCents: number;
  idempotencyKey: string;
  /** For the provider's records. */
  orderId: string;
  /** Our refund and its card round, sent as metadata so a later failure event names them (decision 034). */
  refundId?: string;
  round?: number;
}

export interface RefundResult {
  refundId: string;
  /** `succeeded` includes a refund the provider accepted and is still sending. */
  status: 'succeeded' | 'failed';
}

/** The provider refused the refund for good (a retry with the same key would refuse again). */
export class RefundRefusedError extends Error {}

export type SessionState = 'paid' | 'open' | 'expired' | 'failed';

export interface PaymentProvider {
  name: 'local' | 'stripe';
  createSession(request: PaymentSessionRequest): Promise<PaymentSession>;
  /** Verifies the signature on the raw body and reads the event; throws when forged. */
  parseEvent(rawBody: Buffer, signature: string | undefined): PaymentEvent;
  /** Asks the provider how a session ended (reconciliation of missed events). */
  sessionState(sessionId: string): Promise<{ state: SessionState; paymentIntentId: string | null }>;
  /** Closes a session that is no longer wanted so it cannot be paid; throws if it was paid already. */
  expireSession(sessionId: string): Promise<void>;
  /** Refunds part or all of a payment; idempotent per request key; throws RefundRefusedError when refused. */
  refund(request: RefundRequest): Promise<RefundResult>;
}

/** Where onboarding returns to: Cash Out (token earnings) or the royalties portal (decision 080). */
export type OnboardingReturn = '/cashout' | '/portal';

/** Payout accounts for creators (Stripe Connect Express, or the local stand-in). */
export interface PayoutProvider {
  /** Creates the connected account once per user (idempotent per user id). */
  createAccount(userId: string, email: string): Promise<{ accountId: string }>;
  accountStatus(accountId: string): Promise<{ payoutsEnabled: boolean }>;
  /** The provider's onboarding page; back to `returnPath` afterwards (default: Cash Out; the royalties portal passes /portal). */
  onboardingLink(accountId: string, returnPath?: OnboardingReturn): Promise<{ url: string }>;
  /**
   * Sends money to the account; idempotent per key (default: derived from the request id) for as
   * long as the provider keeps keys (Stripe: 24 hours). Throws TransferRefusedError when refused.
   */
  transfer(accountId: string, amountCents: number, requestId: string, options?: TransferOptions): Promise<{ transferId: string }>;
  /** The transfer made for `requestId` in `transferGroup`, if any: asked before a call whose answer was lost is repeated. */
  findTransfer(transferGroup: string, requestId: string): Promise<{ transferId: string } | null>;
}

/** A transfer's group (Stripe's transfer_group: one payout run) and its idempotency key. */
export interface TransferOptions {
  transferGroup?: string;
  idempotencyKey?: string;
}

/** The provider refused the transfer for good (a retry with the same key would refuse again). */
export class TransferRefusedError extends Error {}

/** What a verified event means, decided outside this area (buildApp hands these in; decision 044). */
export interface PaymentEventHandlers {
  /** succeeded, failed, expired: the checkout's payment flow. */
  payment(event: PaymentEvent): Promise<'applied' | 'duplicate' | 'ignored'>;
  /** refunded, refund-failed, dispute: the order's refunds and disputes. */
  refund(event: PaymentEvent): Promise<'applied' | 'duplicate' | 'ignored'>;
}
