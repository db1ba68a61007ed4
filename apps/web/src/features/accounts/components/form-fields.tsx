import { COUNTRIES, US_STATES } from '@storefront/domain/accounts.ts';
import { useId, type ButtonHTMLAttributes, type InputHTMLAttributes, type ReactNode, type SelectHTMLAttributes } from 'react';
import { Link } from '../../../lib/router.tsx';

interface FieldFrameProps {
  id: string;
  label: string;
  hint?: ReactNode;
  children: ReactNode;
}

function FieldFrame({ id, label, hint, children }: FieldFrameProps) {
  return (
    <div className="auth-field">
      <label htmlFor={id} className="auth-field__label">
        {label}
      </label>
      {children}
      {hint ? (
        <p id={`${id}-hint`} className="auth-field__hint">
          {hint}
        </p>
      ) : null}
    </div>
  );
}

type TextFieldProps = Omit<InputHTMLAttributes<HTMLInputElement>, 'id' | 'className'> & {
  label: string;
  hint?: ReactNode;
};

/** A labelled input; the hint, when given, is read out with the field. */
export function TextField({ label, hint, ...input }: TextFieldProps) {
  const id = useId();
  return (
    <FieldFrame id={id} label={label} hint={hint}>
      <input id={id} className="field-control auth-field__control" aria-describedby={hint ? `${id}-hint` : undefined} {...input} />
    </FieldFrame>
  );
}

type SelectFieldProps = Omit<SelectHTMLAttributes<HTMLSelectElement>, 'id' | 'className'> & {
  label: string;
  hint?: ReactNode;
};

export function SelectField({ label, hint, children, ...select }: SelectFieldProps) {
  const id = useId();
  return (
    <FieldFrame id={id} label={label} hint={hint}>
      <select id={id} className="field-control auth-field__control" aria-describedby={hint ? `${id}-hint` : undefined} {...select}>
        {children}
      </select>
    </FieldFrame>
  );
}

/**
 * Always-present live regions: screen readers announce a change of their text, which
 * they may miss when the whole element appears at once.
 */
export function FormAlert({ message }: { message: string | null }) {
  return (
    <div role="alert" className={message ? 'notice notice--error' : 'notice--empty'}>
      {message}
    </div>
  );
}

export function FormStatus({ message, tone = 'success' }: { message: ReactNode; tone?: 'success' | 'info' }) {
  return (
    <div role="status" className={message ? `notice notice--${tone} auth-message--${tone}` : 'notice--empty'}>
      {message}
    </div>
  );
}

/**
 * The end of an account form: its error, its success note when it has one (`status`, null
 * while there is none), and its one submit button, busy while `pending`.
 */
export function SubmitFooter({
  error,
  status,
  statusTone,
  pending,
  pendingLabel,
  children,
}: {
  error: string | null;
  status?: ReactNode;
  statusTone?: 'success' | 'info';
  pending: boolean;
  pendingLabel: string;
  children: string;
}) {
  return (
    <>
      <FormAlert message={error} />
      {status !== undefined ? <FormStatus message={status} tone={statusTone} /> : null}
      <div className="auth-actions">
        <ProgressButton type="submit" pending={pending} pendingLabel={pendingLabel} disabled={pending}>
          {children}
        </ProgressButton>
      </div>
    </>
  );
}

/** A page that says how something ended (a reset password, a refused link, a deleted account), with one way on. */
export function OutcomePage({ title, to, action, className = 'page auth-page', children }: { title: string; to: string; action: string; className?: string; children: ReactNode }) {
  return (
    <section className={className}>
      <h1>{title}</h1>
      {children}
      <p>
        <Link to={to} className="button">
          {action}
        </Link>
      </p>
    </section>
  );
}

/** A submit or action button that says what it is doing while a call runs. */
export function ProgressButton({
  pending,
  pendingLabel,
  children,
  className = 'button',
  ...button
}: Omit<ButtonHTMLAttributes<HTMLButtonElement>, 'children'> & {
  pending: boolean;
  pendingLabel: string;
  children: string;
}) {
  return (
    <button className={className} aria-busy={pending || undefined} {...button}>
      {pending ? (
        <>
          <span className="button-spinner" aria-hidden="true" />
          {pendingLabel}
        </>
      ) : (
        children
      )}
    </button>
  );
}

const countryNames = new Intl.DisplayNames(['en'], { type: 'region' });

/**
 * Country and, for the US only, state: the pair signup and the account page both ask for. A new
 * country clears the state, so a state hidden with its country is never sent.
 */
export function CountryStateFields({ country, state, onChange }: { country: string; state: string; onChange: (next: { country: string; state: string }) => void }) {
  return (
    <>
      <SelectField label="Country (optional)" autoComplete="country" value={country} onChange={(event) => onChange({ country: event.target.value, state: '' })}>
        <option value="">—</option>
        {COUNTRIES.map((code) => (
          <option key={code} value={code}>
            {countryNames.of(code) ?? code}
          </option>
        ))}
      </SelectField>
      {country === 'US' ? (
        <SelectField label="State (optional)" autoComplete="address-level1" value={state} onChange={(event) => onChange({ country, state: event.target.value })}>
          <option value="">—</option>
          {US_STATES.map((code) => (
            <option key={code} value={code}>
              {code}
            </option>
          ))}
        </SelectField>
      ) : null}
    </>
  );
}
