import { useState, type FormEvent } from 'react';
import { errorSentence } from '../../../lib/error-message.ts';
import { useRedeemGiftCard } from '../api/redeem-gift-card.ts';
import { formatCents } from '../wallet-format.ts';

/** "Redeem a gift card" on /wallet (issue 27, decision 053): the code from the email becomes wallet credit, once. */
export function RedeemGiftCard() {
  const [code, setCode] = useState('');
  const redeem = useRedeemGiftCard();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    redeem.mutate(code.trim(), { onSuccess: () => setCode('') });
  };
  return (
    <section className="redeem-gift-card" aria-labelledby="redeem-gift-card-title">
      <h2 id="redeem-gift-card-title">Redeem a gift card</h2>
      <form className="redeem-gift-card__form" onSubmit={submit}>
        <label htmlFor="gift-card-code">Gift card code</label>
        <input
          id="gift-card-code"
          name="code"
          autoComplete="off"
          spellCheck={false}
          placeholder="XXXX-XXXX-XXXX-XXXX"
          value={code}
          maxLength={64}
          onChange={(event) => setCode(event.currentTarget.value)}
          required
        />
        <button type="submit" className="button" disabled={redeem.isPending || code.trim() === ''}>
          {redeem.isPending ? 'Redeeming…' : 'Redeem'}
        </button>
      </form>
      <div aria-live="polite">
        {redeem.isSuccess ? (
          <p role="status">
            {formatCents(redeem.data.amountCents)} was added to your wallet. Your balance is {formatCents(redeem.data.balanceCents)}.
          </p>
        ) : redeem.isError ? (
          <p role="alert">{errorSentence(redeem.error)}</p>
        ) : null}
      </div>
    </section>
  );
}
