import { useEffect, useRef } from 'react';
import { useSearchParams } from '../../../lib/router.tsx';
import { errorSentence } from '../../../lib/error-message.ts';
import { useSession } from '../../../lib/session.ts';
import { LoadingRegion, Skeleton } from '../../../ui/skeleton.tsx';
import { useConfirmEmailChange } from '../api/account.ts';
import { ACCOUNT_PAGE_TEXTS as T } from '../messages.ts';
import { FormAlert, FormStatus, OutcomePage } from './form-fields.tsx';
import './accounts.css';
import { paths } from '../../../lib/paths.ts';

/**
 * Where the change-email mail's link lands (`?token=...`): the page confirms the change
 * once (a mail scanner that only fetches the link changes nothing), signed in or not.
 */
export function ConfirmEmailPage() {
  const [searchParams] = useSearchParams();
  const token = searchParams.get('token') ?? '';
  const confirm = useConfirmEmailChange();
  const { isSignedIn } = useSession();
  const asked = useRef(false);
  useEffect(() => {
    if (asked.current || !token) return;
    asked.current = true;
    confirm.mutate(token);
  }, [token, confirm]);

  let body;
  if (!token) body = <FormAlert message={T.linkMissing} />;
  else if (confirm.isSuccess) body = <FormStatus message={T.emailChanged(confirm.data.email)} />;
  else if (confirm.isError) body = <FormAlert message={errorSentence(confirm.error, T.emailConfirmFailed)} />;
  else {
    body = (
      <LoadingRegion label="Confirming your new email…">
        <Skeleton width="100%" height="2.5rem" />
      </LoadingRegion>
    );
  }
  return (
    <OutcomePage title="Confirm your new email" to={isSignedIn ? paths.account : paths.login} action={isSignedIn ? 'Go to My account' : 'Go to Login'}>
      {body}
    </OutcomePage>
  );
}
