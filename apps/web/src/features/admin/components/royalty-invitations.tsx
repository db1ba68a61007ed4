import { useId, useState, type FormEvent } from 'react';
import { PORTAL_MESSAGES } from '@storefront/domain/royalty-portal.ts';
import { errorSentence } from '../../../lib/error-message.ts';
import { useInviteRoyaltyParty, useRevokeRoyaltyInvitation, useRoyaltyInvitations, type Royalties, type RoyaltyInvitation } from '../api/royalties.ts';

const STATUS_TEXT = { pending: 'Invited, not accepted yet', accepted: 'Accepted', expired: 'Expired', revoked: 'Withdrawn' } as const;

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** What a row says: its party, address and state (who accepted it, while they hold the party). */
function describe(invitation: RoyaltyInvitation): string {
  const state = invitation.status === 'accepted' && invitation.acceptedBy ? `Accepted by ${invitation.acceptedBy}` : STATUS_TEXT[invitation.status];
  return `${invitation.partyName} · ${invitation.email} · ${state}`;
}

/**
 * The parties' portal invitations (issue 36 part 6, decision 080): invite a party by email (a
 * single-use link, valid 7 days, binds the account that opens it to the party); withdraw a pending
 * invitation or end the access an accepted one gave.
 */
export function Invitations({ data, onDone }: { data: Royalties; onDone: (text: string) => void }) {
  const id = useId();
  const parties = data.parties.filter((party) => !party.house);
  const list = useRoyaltyInvitations();
  const invite = useInviteRoyaltyParty();
  const revoke = useRevokeRoyaltyInvitation();
  const [partyId, setPartyId] = useState('');
  const [email, setEmail] = useState('');
  const [problem, setProblem] = useState('');
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!partyId) return setProblem('Choose a party.');
    if (!EMAIL.test(email.trim())) return setProblem(PORTAL_MESSAGES.invalidEmail);
    invite.mutate(
      { partyId: Number(partyId), email: email.trim() },
      {
        onSuccess: () => {
          setProblem('');
          setEmail('');
          onDone(`Invitation sent to ${email.trim()}.`);
        },
        onError: (error) => setProblem(errorSentence(error, 'Could not send the invitation.')),
      },
    );
  };
  const withdraw = (invitation: RoyaltyInvitation) =>
    revoke.mutate(
      { id: invitation.id },
      {
        onSuccess: () => onDone(invitation.status === 'accepted' ? `${invitation.partyName}'s portal access ended.` : 'Invitation withdrawn.'),
        onError: (error) => setProblem(errorSentence(error, 'Could not withdraw the invitation.')),
      },
    );
  return (
    <section aria-labelledby={`${id}-title`}>
      <h4 id={`${id}-title`}>Portal invitations</h4>
      <p>The invited person signs in with their shop account and sees only that party&apos;s statements, sales, recoup and payouts.</p>
      <form className="console-roster__form" onSubmit={submit} noValidate aria-label="Invite a party">
        <select aria-label="Invite party" className="field-control" value={partyId} onChange={(event) => setPartyId(event.target.value)}>
          <option value="">Choose a party…</option>
          {parties.map((party) => (
            <option key={party.id} value={party.id}>
              {party.name}
            </option>
          ))}
        </select>
        <label htmlFor={`${id}-email`}>Their email</label>
        <input id={`${id}-email`} className="field-control" type="email" autoComplete="off" value={email} onChange={(event) => setEmail(event.target.value)} />
        <button type="submit" className="button" disabled={invite.isPending}>
          Invite
        </button>
        <div role="alert">{problem}</div>
      </form>
      {list.isError ? <p role="alert">{errorSentence(list.error, 'Could not load the invitations.')}</p> : null}
      {list.data && list.data.invitations.length === 0 ? <p>No one invited yet.</p> : null}
      <ul aria-label="Invitations">
        {(list.data?.invitations ?? []).map((invitation) => (
          <li key={invitation.id} data-testid="royalty-invitation">
            {describe(invitation)}{' '}
            {invitation.status === 'pending' || invitation.status === 'accepted' ? (
              <button type="button" className="button button--secondary" disabled={revoke.isPending} onClick={() => withdraw(invitation)}>
                {invitation.status === 'accepted' ? `End access of ${invitation.acceptedBy ?? invitation.email}` : `Withdraw invitation of ${invitation.email}`}
              </button>
            ) : null}
          </li>
        ))}
      </ul>
    </section>
  );
}
