import { useState, type FormEvent } from 'react';
import { errorSentence } from '../../../lib/error-message.ts';
import { paths } from '../../../lib/paths.ts';
import { Link } from '../../../lib/router.tsx';
import { useSession } from '../../../lib/session.ts';
import { redeemCode } from '../api/digital.ts';
import './digital.css';

/** Redeem a download code from a card in a sleeve (issue 28): the release goes to the fan's library. */
export function RedeemPage() {
  const session = useSession();
  const [code, setCode] = useState('');
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<{ ok: true; title: string } | { ok: false; message: string } | null>(null);
  if (!session.isLoading && !session.user) {
    return (
      <section className="page redeem-page">
        <h1>Redeem a code</h1>
        <p>
          <Link to={paths.login}>Log in</Link> to redeem a download code.
        </p>
      </section>
    );
  }
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    try {
      const redeemed = await redeemCode(code);
      setResult({ ok: true, title: redeemed.title });
    } catch (error) {
      setResult({ ok: false, message: errorSentence(error) });
    } finally {
      setBusy(false);
    }
  };
  return (
    <section className="page redeem-page">
      <h1>Redeem a code</h1>
      <form className="redeem-form" onSubmit={(event) => void submit(event)}>
        <label htmlFor="redeem-code">Download code</label>
        <input id="redeem-code" name="code" autoComplete="off" value={code} onChange={(event) => setCode(event.currentTarget.value)} required maxLength={64} />
        <button type="submit" className="button" disabled={busy || code.trim() === ''}>
          Redeem
        </button>
      </form>
      <div aria-live="polite">
        {result?.ok ? (
          <p>
            {result.title} is in your library. <Link to={paths.library}>Go to my music</Link>
          </p>
        ) : result ? (
          <p role="alert">{result.message}</p>
        ) : null}
      </div>
    </section>
  );
}
