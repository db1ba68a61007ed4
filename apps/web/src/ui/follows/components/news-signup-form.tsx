import { useId, useState, type FormEvent } from 'react';
import { errorSentence } from '../../../lib/error-message.ts';
import { useHydrated } from '../../../lib/hydration.ts';
import { useLocation } from '../../../lib/router.tsx';
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
  const [email, setEmail] = useState('');
  const subscribe = useSubscribeToNews();
  // Server-rendered: typed before the code arrives, the address would be lost (decision 062's rule).
  const hydrated = useHydrated();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    subscribe.mutate({ email, page: pathname });
  };
  return (
    <section className="news-signup" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{NEWS_TEXTS.formTitle}</h2>
      <p>{NEWS_TEXTS.formLead}</p>
      {subscribe.isSuccess ? (
        <p role="status">{NEWS_TEXTS.sent}</p>
      ) : (
        <form className="news-signup__form" onSubmit={submit} noValidate>
          <label htmlFor={`${id}-email`}>{NEWS_TEXTS.emailLabel}</label>
          <input
            id={`${id}-email`}
            className="field-control"
            type="email"
            autoComplete="email"
            required
            maxLength={254}
            disabled={!hydrated}
            value={email}
            onChange={(event) => setEmail(event.target.value)}
          />
          <button type="submit" className="button" disabled={!hydrated || subscribe.isPending}>
            {NEWS_TEXTS.submit}
          </button>
        </form>
      )}
      {subscribe.isError ? <p role="alert">{errorSentence(subscribe.error, NEWS_TEXTS.failed)}</p> : null}
    </section>
  );
}
