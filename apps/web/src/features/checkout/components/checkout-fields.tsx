import type { InputHTMLAttributes, ReactNode, SelectHTMLAttributes } from 'react';

interface FieldProps {
  id: string;
  label: string;
  /** The id of the message that explains the problem, when this field has one. */
  errorId?: string | undefined;
}

type InputFieldProps = FieldProps & Omit<InputHTMLAttributes<HTMLInputElement>, 'id' | 'className'>;

/** A labelled input; an invalid one says so and points at the message. */
export function InputField({ id, label, errorId, ...input }: InputFieldProps) {
  return (
    <div className="checkout-field">
      <label htmlFor={id} className="checkout-field__label">
        {label}
      </label>
      <input id={id} className="field-control checkout-field__control" aria-invalid={errorId ? true : undefined} aria-describedby={errorId} {...input} />
    </div>
  );
}

type SelectFieldProps = FieldProps & Omit<SelectHTMLAttributes<HTMLSelectElement>, 'id' | 'className'> & { children: ReactNode };

export function SelectField({ id, label, errorId, children, ...select }: SelectFieldProps) {
  return (
    <div className="checkout-field">
      <label htmlFor={id} className="checkout-field__label">
        {label}
      </label>
      <select id={id} className="field-control checkout-field__control" aria-invalid={errorId ? true : undefined} aria-describedby={errorId} {...select}>
        {children}
      </select>
    </div>
  );
}
