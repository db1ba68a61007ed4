import { useId } from 'react';
import { errorSentence } from '../../../lib/error-message.ts';
import { useLocation } from '../../../lib/router.tsx';
import { EmailForm } from '../../email-form.tsx';
import { useSubscribeToNews } from '../api/news.ts';
import { NEWS_TEXTS } from '../messages.ts';
import './follows.css';

/**
 * The public sign-up form for news (issue 37 part 2, decision 074), for people without an
 * account: double opt-in, the server mails a link to confirm. The page it was sent from is recorded.
 */
export function NewsSignupForm() {
  const id = useId();
  const { pathname } = useLocation();
  const subscribe = useSubscribeToNews();
  return (
    <section className="news-signup" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{NEWS_TEXTS.formTitle}</h2>
      <p>{NEWS_TEXTS.formLead}</p>
      {subscribe.isSuccess ? (
        <p role="status">{NEWS_TEXTS.sent}</p>
      ) : (
        <EmailForm
          className="news-signup__form"
          label={NEWS_TEXTS.emailLabel}
          submitLabel={NEWS_TEXTS.submit}
          pending={subscribe.isPending}
          onSubmit={(email) => subscribe.mutate({ email, page: pathname })}
        />
      )}
      {subscribe.isError ? <p role="alert">{errorSentence(subscribe.error, NEWS_TEXTS.failed)}</p> : null}
    </section>
  );
}
