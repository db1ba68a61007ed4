import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PORTAL_MESSAGES } from '@storefront/domain/royalty-portal.ts';
import { STATEMENT_MESSAGES } from '@storefront/domain/royalty-statements.ts';
import { todayIn } from '@storefront/domain/sales.ts';
import type { FunctionsError } from '@storefront/sdk/callable.ts';
import { startTestApp, type TestApp } from '../../test/app.ts';
import { startSmtpPeer } from '../../test/smtp.ts';
import { postEarnings } from '../checkout/earnings.step.ts';
import { localTransfers, royaltyParties, royaltyPartyMembers } from '../db/schema/index.ts';
import { runTransaction } from '../db/transaction.ts';
import { RATE_LIMIT_MESSAGE } from '../http/rate-limit.ts';
import { insertOrder } from '../orders/orders.service.ts';
import { credit, debit } from '../wallet/wallet.service.ts';
import { signInvitationLink } from './invitation-links.ts';
import { createInvitation } from './invitations.service.ts';
import { insertRule } from './rules.service.ts';

/**
 * The parties' portal (issue 36 part 6, decision 080), by its outcomes: the invitation mail at a
 * real SMTP peer, its link binding the account that opens it (once), the portal answering only the
 * bound party's statements, sales, recoup and payouts, a withdrawn, forged or expired link refused,
 * the invite limited, and "Connect payouts" giving the party the caller's payout account, which the
 * next payout run pays.
 */
const ZONE = 'America/New_York';
let smtp: Awaited<ReturnType<typeof startSmtpPeer>>;
let app: TestApp;
type Client = ReturnType<TestApp['functions']>;
let admin: Client;
let artist: Client;
let other: Client;
let shopper: Client;
const ids: Record<string, string> = {};
let buyerId: string;
let house: number;
let serial = 0;

beforeAll(async () => {
  smtp = await startSmtpPeer();
  app = await startTestApp({ config: { env: { LABEL_TIME_ZONE: ZONE, SMTP_URL: smtp.url, ROYALTY_MIN_PAYOUT_CENTS: '100' } } });
  for (const name of ['portal-admin', 'portal-artist', 'portal-other', 'portal-shopper']) ids[name] = await app.account(name);
  buyerId = await app.account('portal-buyer');
  await app.db.execute(sql`UPDATE "user" SET role = 'admin' WHERE id = ${ids['portal-admin']!}`);
  const client = async (name: string) => {
    const token = await app.signIn(`${name}@example.org`);
    return app.functions(() => token);
  };
  [admin, artist, other, shopper] = [await client('portal-admin'), await client('portal-artist'), await client('portal-other'), await client('portal-shopper')];
  house = (await app.db.select().from(royaltyParties).where(eq(royaltyParties.house, true)))[0]!.id;
});

afterAll(async () => {
  await app?.close();
  await smtp?.close();
});

const errorOf = async (promise: Promise<unknown>) =>
  (await promise.then(
    () => undefined,
    (error: unknown) => error,
  )) as FunctionsError;

/** A wallet order of `qty` units at `unitCents`, posted as the checkout posts it. */
async function order(productId: string, unitCents: number, qty: number) {
  serial += 1;
  const subtotal = unitCents * qty;
  return runTransaction(app.db, async (tx) => {
    const { id } = await insertOrder(tx, {
      userId: buyerId,
      checkoutId: `portal-${serial}`,
      paymentIntentId: `pi_portal_${serial}`,
      items: [{ id: productId, name: 'Line', qty, unitCents }],
      subtotalCents: subtotal,
      shippingCents: 0,
      taxCents: 0,
      walletAppliedCents: subtotal,
      chargedCents: 0,
      contact: { name: 'Buyer', email: 'portal-buyer@example.org', phone: '' },
      shipping: { name: 'Buyer' },
    });
    await credit(tx, buyerId, subtotal, `portal-grant-${serial}`);
    await debit(tx, buyerId, subtotal, id);
    await postEarnings(tx, id);
    return { id };
  });
}

/** A release split 50/50 between the label and a new party of its own; the party's id and the release's product. */
async function releaseWithParty(title: string, partyName: string) {
  const { id: releaseId } = await admin.call('saveRelease', {
    kind: 'ep',
    title,
    artist: partyName,
    releaseDate: '2026-01-01',
    priceCents: 1000,
    published: true,
    tracks: [{ title: 'One' }],
  });
  const { release } = await admin.call('getRelease', { id: releaseId });
  const { id: artistId } = await admin.call('saveArtist', { name: partyName, links: [] });
  const { id: partyId } = await admin.call('saveRoyaltyParty', { kind: 'artist', name: partyName, artistId });
  await insertRule(
    app.db,
    ZONE,
    {
      subject: { kind: 'release', id: releaseId },
      effectiveFrom: '2020-01-01',
      shares: [
        { partyId: house, shareBp: 5000 },
        { partyId, shareBp: 5000 },
      ],
      reserveBp: 0,
      reserveDays: 0,
    },
    { operator: 'cli' },
  );
  return { releaseId, partyId, productId: release!.productId! };
}

/** The token of the newest invitation mail to `to`, as its link carries it. */
async function invitationToken(to: string, partyName: string): Promise<string> {
  const mail = await smtp.waitForText(to, `see the royalties of ${partyName}`);
  const link = /https?:\/\/\S+\/portal\/accept\?token=([^\s"<&]+)/.exec(mail.decoded);
  expect(link, 'the mail carries the portal link').toBeTruthy();
  return decodeURIComponent(link![1]!);
}

const month = () => todayIn(ZONE).slice(0, 7);

describe('the parties’ portal', () => {
  it('binds the account that opens the mailed link, once, and shows it only its own party’s figures', async () => {
    const a = await releaseWithParty('Portal EP', 'Portal Band');
    const b = await releaseWithParty('Elsewhere LP', 'Elsewhere Band');
    await admin.call('addRecoupCost', { releaseId: a.releaseId, partyId: a.partyId, kind: 'advance', amountCents: 1000, note: 'Advance' });
    await order(a.productId, 1000, 1);
    await order(b.productId, 1000, 3);

    // A shopper and the artist before accepting hold nothing.
    expect(await shopper.call('getMyRoyalties', null)).toEqual({ parties: [] });
    expect(await artist.call('getMyRoyalties', null)).toEqual({ parties: [] });

    const invited = await admin.call('inviteRoyaltyParty', { partyId: a.partyId, email: ' Portal-Artist@Example.org ' });
    const token = await invitationToken('portal-artist@example.org', 'Portal Band');
    expect(await artist.call('acceptRoyaltyInvitation', { token })).toEqual({ party: { id: a.partyId, name: 'Portal Band', kind: 'artist' } });
    // Used once: another account is refused; the same account opening it again is simply answered.
    expect((await errorOf(other.call('acceptRoyaltyInvitation', { token }))).message).toBe(PORTAL_MESSAGES.linkUsed);
    expect((await artist.call('acceptRoyaltyInvitation', { token })).party.id).toBe(a.partyId);
    const members = await app.db.select().from(royaltyPartyMembers).where(eq(royaltyPartyMembers.partyId, a.partyId));
    expect(members.map((row) => row.userId)).toEqual([ids['portal-artist']]);
    const listed = (await admin.call('listRoyaltyInvitations', null)).invitations.find((row) => row.id === invited.id);
    expect(listed).toMatchObject({ status: 'accepted', email: 'portal-artist@example.org', acceptedBy: 'portal-artist@example.org' });

    // The portal: the party's own sales (1 unit, $5.00 of $10.00), recoup ($5.00 of $10.00) and balance; nothing of the other party or the label.
    const mine = await artist.call('getMyRoyalties', null);
    expect(mine.parties).toHaveLength(1);
    expect(mine.parties[0]).toMatchObject({
      party: { id: a.partyId, name: 'Portal Band' },
      payouts: 'none',
      sales: [{ releaseId: a.releaseId, release: 'Portal EP', units: 1, soldCents: 500, returnedCents: 0, earningsCents: 500 }],
      recoup: [{ releaseId: a.releaseId, release: 'Portal EP', totalCents: 1000, recoupedCents: 500 }],
      statements: [],
      payoutList: [],
      balanceCents: 0,
    });
    expect(JSON.stringify(mine)).not.toContain('Elsewhere');

    // Statements: its own issued one reads as the console's; the other party's is not found, nor its CSV.
    const own = await admin.call('issueRoyaltyStatement', { partyId: a.partyId, period: month() });
    const theirs = await admin.call('issueRoyaltyStatement', { partyId: b.partyId, period: month() });
    expect(await artist.call('getMyRoyaltyStatement', { statementId: own.id! })).toEqual(own);
    expect((await artist.call('getMyRoyaltyStatementCsv', { statementId: own.id! })).csv).toContain('Portal EP');
    expect((await artist.call('getMyRoyalties', null)).parties[0]!.statements.map((row) => row.id)).toEqual([own.id]);
    for (const call of [artist.call('getMyRoyaltyStatement', { statementId: theirs.id! }), artist.call('getMyRoyaltyStatementCsv', { statementId: theirs.id! })]) {
      expect((await errorOf(call)).message).toBe(STATEMENT_MESSAGES.statementNotFound);
    }
    expect((await errorOf(shopper.call('getMyRoyaltyStatement', { statementId: own.id! }))).message).toBe(STATEMENT_MESSAGES.statementNotFound);
    // An admin keeps full access.
    expect((await admin.call('getMyRoyaltyStatement', { statementId: theirs.id! })).party.name).toBe('Elsewhere Band');

    // Withdrawn: the access ends, and the link cannot be used again.
    await admin.call('revokeRoyaltyInvitation', { id: invited.id });
    expect(await artist.call('getMyRoyalties', null)).toEqual({ parties: [] });
    expect((await errorOf(artist.call('getMyRoyaltyStatement', { statementId: own.id! }))).message).toBe(STATEMENT_MESSAGES.statementNotFound);
    expect((await errorOf(artist.call('acceptRoyaltyInvitation', { token }))).message).toBe(PORTAL_MESSAGES.linkRevoked);
    expect(await app.db.select().from(royaltyPartyMembers).where(eq(royaltyPartyMembers.partyId, a.partyId))).toEqual([]);
  });

  it('refuses a forged, expired or withdrawn link, the label itself, a bad address, and a flood of invitations', async () => {
    const { id: partyId } = await admin.call('saveRoyaltyParty', { kind: 'producer', name: 'Portal Producer' });
    await admin.call('inviteRoyaltyParty', { partyId, email: 'portal-other@example.org' });
    const token = await invitationToken('portal-other@example.org', 'Portal Producer');
    const [id, expiry, signature] = token.split('.') as [string, string, string];
    const forged = `${id}.${Number(expiry) + 86_400_000}.${signature}`;
    expect((await errorOf(other.call('acceptRoyaltyInvitation', { token: forged }))).message).toBe(PORTAL_MESSAGES.linkInvalid);
    expect((await errorOf(other.call('acceptRoyaltyInvitation', { token: `${id}.${expiry}.${'A'.repeat(43)}` }))).message).toBe(PORTAL_MESSAGES.linkInvalid);
    // Made eight days ago: past its seven.
    const old = await createInvitation(app.db, { partyId, email: 'portal-other@example.org' }, { operator: 'cli' }, new Date(Date.now() - 8 * 86_400_000));
    const expired = signInvitationLink(app.config.AUTH_SECRET, old.id, old.expiresAt);
    expect((await errorOf(other.call('acceptRoyaltyInvitation', { token: expired }))).message).toBe(PORTAL_MESSAGES.linkExpired);
    expect(await app.db.select().from(royaltyPartyMembers).where(eq(royaltyPartyMembers.partyId, partyId))).toEqual([]);

    expect((await errorOf(admin.call('inviteRoyaltyParty', { partyId: house, email: 'x@example.org' }))).message).toBe(PORTAL_MESSAGES.houseParty);
    expect((await errorOf(admin.call('inviteRoyaltyParty', { partyId, email: 'not an address' }))).message).toBe(PORTAL_MESSAGES.invalidEmail);
    // Five an hour to one address.
    for (let i = 0; i < 5; i += 1) await admin.call('inviteRoyaltyParty', { partyId, email: 'flood@example.org' });
    expect((await errorOf(admin.call('inviteRoyaltyParty', { partyId, email: 'flood@example.org' }))).message).toBe(RATE_LIMIT_MESSAGE);
  });

  it('connects payouts to the caller’s own payout account, and the payout run pays it', async () => {
    const c = await releaseWithParty('Connect EP', 'Connect Band');
    await order(c.productId, 1000, 4);
    await admin.call('inviteRoyaltyParty', { partyId: c.partyId, email: 'portal-other@example.org' });
    await other.call('acceptRoyaltyInvitation', { token: await invitationToken('portal-other@example.org', 'Connect Band') });
    // Only the holder connects the party: not another account, not an admin who does not hold it.
    expect((await errorOf(artist.call('connectRoyaltyPayouts', { partyId: c.partyId }))).message).toBe(PORTAL_MESSAGES.partyNotFound);
    expect((await errorOf(admin.call('connectRoyaltyPayouts', { partyId: c.partyId }))).message).toBe(PORTAL_MESSAGES.partyNotFound);

    const { url } = await other.call('connectRoyaltyPayouts', { partyId: c.partyId });
    expect(url).toBe('/payouts/onboard?return=portal');
    const account = `acct_local_${ids['portal-other']}`;
    const [party] = await app.db.select().from(royaltyParties).where(eq(royaltyParties.id, c.partyId));
    expect(party!.payoutAccountId).toBe(account);
    expect((await other.call('getMyRoyalties', null)).parties[0]!.payouts).toBe('pending');
    // The local provider's onboarding, confirmed: back to the portal, payouts ready.
    const token = await app.signIn('portal-other@example.org');
    const confirmed = await fetch(`${app.baseUrl}/payouts/onboard`, {
      method: 'POST',
      redirect: 'manual',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'return=portal',
    });
    expect(confirmed.headers.get('location')).toBe('/portal');
    expect((await other.call('getMyRoyalties', null)).parties[0]!.payouts).toBe('ready');

    await admin.call('runRoyaltyPayouts', { period: month() });
    const transfers = await app.db.select().from(localTransfers).where(eq(localTransfers.accountId, account));
    expect(transfers.map((row) => row.amountCents)).toEqual([2000]);
    const portal = (await other.call('getMyRoyalties', null)).parties[0]!;
    expect(portal.payoutList).toMatchObject([{ period: month(), amountCents: 2000, status: 'paid' }]);
    expect(portal.balanceCents).toBe(0);
  });
});
