import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { DROP_MESSAGES } from '@storefront/domain/drops.ts';
import { functionsClient } from '../../lib/api-client.ts';
import { errorSentence } from '../../lib/error-message.ts';
import { dropKeys } from '../../lib/query-keys.ts';
import { useSession } from '../../lib/session.ts';
import { EmailForm } from '../email-form.tsx';
import { NOTIFY_TEXTS } from './messages.ts';
import './notify-me.css';

/**
 * Notify me (issue 37 part 4, decision 076) on a sold-out variant: the same list as a drop's
 * waitlist. Signed in, one click (`joinWaitlist`); signed out, an address that the mailed link
 * confirms (`notifyMeByEmail`).
 */
export function NotifyMe({ variantId, name }: { variantId: string; name: string }) {
  const session = useSession();
  if (session.isLoading) return null;
  return (
    <div className="notify-me" data-testid="notify-me">
      {session.isSignedIn ? <SignedIn variantId={variantId} name={name} /> : <ByEmail key={variantId} variantId={variantId} name={name} />}
    </div>
  );
}

function SignedIn({ variantId, name }: { variantId: string; name: string }) {
  const queryClient = useQueryClient();
  const lists = useQuery({ queryKey: dropKeys.waitlists, queryFn: async () => (await functionsClient.call('getMyWaitlists', null)).entries });
  const change = useMutation({
    mutationFn: async (join: boolean) => {
      if (join) await functionsClient.call('joinWaitlist', { variantId });
      else await functionsClient.call('leaveWaitlist', { variantId });
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: dropKeys.waitlists }),
  });
  const mine = lists.data?.find((entry) => entry.variantId === variantId && (entry.status === 'waiting' || entry.status === 'offered'));
  return (
    <>
      {mine ? (
        <>
          <p role="status">{NOTIFY_TEXTS.on}</p>
          <button type="button" className="button button--secondary" disabled={change.isPending} onClick={() => change.mutate(false)}>
            {NOTIFY_TEXTS.leave(name)}
          </button>
        </>
      ) : (
        <button type="button" className="button" disabled={lists.isPending || change.isPending} onClick={() => change.mutate(true)}>
          {NOTIFY_TEXTS.ask(name)}
        </button>
      )}
      {change.isError ? <p role="alert">{errorSentence(change.error, NOTIFY_TEXTS.failed)}</p> : null}
    </>
  );
}

function ByEmail({ variantId, name }: { variantId: string; name: string }) {
  const ask = useMutation({ mutationFn: (address: string) => functionsClient.call('notifyMeByEmail', { variantId, email: address }) });
  if (ask.isSuccess) return <p role="status">{DROP_MESSAGES.notifySent}</p>;
  return (
    <EmailForm
      className="notify-me__form"
      label={NOTIFY_TEXTS.emailLabel}
      submitLabel={NOTIFY_TEXTS.ask(name)}
      ariaLabel={NOTIFY_TEXTS.ask(name)}
      pending={ask.isPending}
      onSubmit={(email) => ask.mutate(email)}
      lead={<p>{NOTIFY_TEXTS.lead}</p>}
      error={ask.isError ? <p role="alert">{errorSentence(ask.error, NOTIFY_TEXTS.failed)}</p> : null}
    />
  );
}
