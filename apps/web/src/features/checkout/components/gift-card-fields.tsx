import { GIFT_CARD_MESSAGE_MAX } from '@storefront/domain/gift-cards.ts';
import { InputField } from './checkout-fields.tsx';

export interface GiftValues {
  recipientEmail: string;
  message: string;
}

/**
 * Who a gift card goes to (issue 27, decision 053): shown when the cart holds one. The code is
 * emailed to this address once the card payment is in.
 */
export function GiftCardFields({
  idPrefix,
  value,
  onChange,
  errorId,
  disabled,
}: {
  idPrefix: string;
  value: GiftValues;
  onChange: (value: GiftValues) => void;
  errorId: string | undefined;
  disabled: boolean;
}) {
  const messageId = `${idPrefix}-gift-message`;
  return (
    <fieldset className="field-group checkout-fieldset">
      <legend className="checkout-fieldset__legend">Gift card</legend>
      <p className="checkout-toggle__hint">We email the gift card code to this address once your card payment is in.</p>
      <InputField
        id={`${idPrefix}-gift-email`}
        label="Recipient email"
        type="email"
        inputMode="email"
        autoComplete="off"
        spellCheck={false}
        maxLength={254}
        required
        disabled={disabled}
        errorId={errorId}
        value={value.recipientEmail}
        onChange={(event) => onChange({ ...value, recipientEmail: event.target.value })}
      />
      <div className="checkout-field">
        <label htmlFor={messageId} className="checkout-field__label">
          Message (optional)
        </label>
        <textarea
          id={messageId}
          className="field-control checkout-field__control"
          rows={3}
          maxLength={GIFT_CARD_MESSAGE_MAX}
          disabled={disabled}
          value={value.message}
          onChange={(event) => onChange({ ...value, message: event.target.value })}
        />
      </div>
    </fieldset>
  );
}
