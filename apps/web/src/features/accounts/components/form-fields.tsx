import { useId, type ButtonHTMLAttributes, type InputHTMLAttributes, type ReactNode, type SelectHTMLAttributes } from 'react';

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
          <span className="auth-button-spinner" aria-hidden="true" />
          {pendingLabel}
        </>
      ) : (
        children
      )}
    </button>
  );
}
