import { useId, useState, type FormEvent } from 'react';
import { errorSentence } from '../../../lib/error-message.ts';
import { useAudienceSettings, useSaveAudienceSettings } from '../api/audience.ts';
import { LoadState } from './load-state.tsx';

const HOURS_PROBLEM = 'Give the hours as a whole number from 1 to 720.';

/**
 * The cart reminder (issue 37 part 7, decision 078): off by default; on, one mail a number of
 * hours after a checkout was left unpaid, to fans who consent to news only, never after they
 * bought and never for a drop's products.
 */
export function ReminderSettings() {
  const settings = useAudienceSettings();
  const save = useSaveAudienceSettings();
  const onId = useId();
  const hoursId = useId();
  const hintId = useId();
  const [draft, setDraft] = useState<{ on: boolean; hours: string } | null>(null);
  const [status, setStatus] = useState<{ error: boolean; text: string } | null>(null);
  if (!draft && settings.data) setDraft({ on: settings.data.cartReminderHours !== null, hours: String(settings.data.cartReminderHours ?? 24) });

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!draft) return;
    const hours = Number(draft.hours);
    if (draft.on && (!Number.isInteger(hours) || hours < 1 || hours > 720)) {
      setStatus({ error: true, text: HOURS_PROBLEM });
      return;
    }
    save.mutate(draft.on ? hours : null, {
      onSuccess: (saved) =>
        setStatus({
          error: false,
          text:
            saved.cartReminderHours === null
              ? 'Cart reminders are off.'
              : `Cart reminders are on: sent ${saved.cartReminderHours} ${saved.cartReminderHours === 1 ? 'hour' : 'hours'} after a checkout is left unpaid.`,
        }),
      onError: (error) => setStatus({ error: true, text: errorSentence(error, 'Could not save the cart reminder.') }),
    });
  };

  return (
    <section aria-labelledby="audience-reminder" className="console-audience__section">
      <h3 id="audience-reminder">Cart reminder</h3>
      <p className="console__hint" id={hintId}>
        One mail for a checkout left unpaid, sent only to fans who said yes to news, once per checkout, never after they bought and never for a drop’s products. Its link rebuilds
        the cart.
      </p>
      {!draft ? (
        <LoadState query={settings} label="Loading the cart reminder…" lines={2} failed="Could not load the cart reminder." />
      ) : (
        <form className="console-audience__reminder" onSubmit={submit} noValidate aria-describedby={hintId}>
          <input id={onId} type="checkbox" checked={draft.on} onChange={(event) => setDraft({ ...draft, on: event.target.checked })} />
          <label htmlFor={onId}>Remind fans of an unpaid checkout</label>
          <label htmlFor={hoursId}>after (hours)</label>
          <input
            id={hoursId}
            type="number"
            inputMode="numeric"
            min={1}
            max={720}
            step={1}
            value={draft.hours}
            disabled={!draft.on}
            onChange={(event) => setDraft({ ...draft, hours: event.target.value })}
          />
          <button type="submit" className="button" disabled={save.isPending}>
            Save reminder
          </button>
        </form>
      )}
      <p role="status" className={status?.error ? 'console-audience__error' : undefined}>
        {status?.text ?? ''}
      </p>
    </section>
  );
}
