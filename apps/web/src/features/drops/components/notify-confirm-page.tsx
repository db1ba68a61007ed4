import { useMutation } from '@tanstack/react-query';
import { DROP_MESSAGES } from '@storefront/domain/drops.ts';
import { functionsClient } from '../../../lib/api-client.ts';
import { errorSentence } from '../../../lib/error-message.ts';
import { paths } from '../../../lib/paths.ts';
import { Link, useSearchParams } from '../../../lib/router.tsx';
import './drops.css';

/**
 * /notify/confirm?token=… (issue 37 part 4, decision 076): the signed-out "notify me" mail's
 * link. Opening it shows a button; only pressing it confirms, so a mail scanner that opens
 * every link puts nobody on a list.
 */
export function NotifyConfirmPage() {
  const [search] = useSearchParams();
  const token = search.get('token') ?? '';
  const confirm = useMutation({ mutationFn: () => functionsClient.call('confirmNotifyMe', { token }) });
  return (
    <section className="page waitlist-page">
      <h1>Notify me</h1>
      {!token ? (
        <p role="alert">{DROP_MESSAGES.notifyLinkInvalid}</p>
      ) : confirm.isSuccess ? (
        <>
          <p role="status">{DROP_MESSAGES.notifyConfirmed}</p>
          <p>
            <Link to={paths.product(confirm.data.productId)}>Back to {confirm.data.name}</Link>
          </p>
        </>
      ) : (
        <>
          <p>Confirm that we may email you once when the item is back in stock.</p>
          <button type="button" className="button" disabled={confirm.isPending} onClick={() => confirm.mutate()}>
            Confirm
          </button>
          {confirm.isError ? <p role="alert">{errorSentence(confirm.error, DROP_MESSAGES.notifyLinkInvalid)}</p> : null}
        </>
      )}
      <p>
        <Link to={paths.shop}>Back to the shop</Link>
      </p>
    </section>
  );
}
