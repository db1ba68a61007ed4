import { errorSentence } from '../../../lib/error-message.ts';
import { paths } from '../../../lib/paths.ts';
import { useConsent, useSetConsent } from '../api/news.ts';
import { NEWS_TEXTS } from '../messages.ts';

/** /account's marketing consent (decision 074): what was given, when, how and where; one click gives or stops it. */
export function NewsSection() {
  const consent = useConsent();
  const change = useSetConsent();
  const on = consent.data?.consented === true;
  return (
    <section className="account-card" aria-labelledby="account-news">
      <h2 id="account-news">{NEWS_TEXTS.accountTitle}</h2>
      {consent.isError ? <p role="alert">{errorSentence(consent.error, NEWS_TEXTS.failed)}</p> : null}
      {consent.data ? (
        <>
          <p data-testid="news-state">{on ? NEWS_TEXTS.accountOn : NEWS_TEXTS.accountOff}</p>
          {on && consent.data.givenAt ? (
            <p className="account-card__note">{NEWS_TEXTS.since(consent.data.source ?? '', consent.data.page ?? '', new Date(consent.data.givenAt).toLocaleString())}</p>
          ) : null}
          <button type="button" className="button button--secondary" disabled={change.isPending} onClick={() => change.mutate({ consented: !on, page: paths.account })}>
            {on ? NEWS_TEXTS.stop : NEWS_TEXTS.give}
          </button>
        </>
      ) : null}
      {change.isError ? <p role="alert">{errorSentence(change.error, NEWS_TEXTS.failed)}</p> : null}
    </section>
  );
}
