import { useId, useState, type FormEvent, type ReactNode } from 'react';
import { useHydrated } from '../lib/hydration.ts';

/**
 * One email address and a button: the shape of every "tell me by mail" form a signed-out visitor
 * meets (news sign-up, notify me). Server-rendered pages show it before their code runs, so it stays
 * disabled until hydrated: typed earlier, the address would be lost (decision 062's rule).
 */
export function EmailForm({
  className,
  label,
  submitLabel,
  ariaLabel,
  pending,
  onSubmit,
  lead,
  error,
}: {
  className: string;
  label: string;
  submitLabel: string;
  ariaLabel?: string;
  pending: boolean;
  onSubmit: (email: string) => void;
  /** Shown above the field. */
  lead?: ReactNode;
  /** Shown below the button. */
  error?: ReactNode;
}) {
  const id = useId();
  const [email, setEmail] = useState('');
  const hydrated = useHydrated();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSubmit(email);
  };
  return (
    <form className={className} onSubmit={submit} noValidate aria-label={ariaLabel}>
      {lead}
      <label htmlFor={`${id}-email`}>{label}</label>
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
      <button type="submit" className="button" disabled={!hydrated || pending}>
        {submitLabel}
      </button>
      {error}
    </form>
  );
}
