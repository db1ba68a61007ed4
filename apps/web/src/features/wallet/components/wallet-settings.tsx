import { useId, useState } from 'react';
import { Modal } from '../../../ui/modal.tsx';
import { BILLING_PORTAL_URL } from '../wallet-config.ts';
import { PayoutAccount } from './payout-account.tsx';

/** The Wallet Settings button and its modal (spec section 2): billing, and payout accounts. */
export function WalletSettings() {
  const [open, setOpen] = useState(false);
  const billingId = useId();
  const payoutId = useId();
  return (
    <>
      <button type="button" className="button button--secondary" aria-haspopup="dialog" onClick={() => setOpen(true)}>
        Wallet Settings
      </button>
      <Modal open={open} onClose={() => setOpen(false)} title="Wallet Settings">
        <section className="wallet-settings__section" aria-labelledby={billingId}>
          <h3 id={billingId} className="wallet-settings__title">
            Billing
          </h3>
          <p className="wallet-settings__text">Your payment methods and invoices are kept in our billing portal.</p>
          <a className="button" href={BILLING_PORTAL_URL} target="_blank" rel="noopener noreferrer">
            Edit Billing Info
            <span className="visually-hidden"> (opens in a new tab)</span>
            <span aria-hidden="true">↗</span>
          </a>
        </section>
        <section className="wallet-settings__section" aria-labelledby={payoutId} data-area="payout-account">
          <h3 id={payoutId} className="wallet-settings__title">
            Payout account
          </h3>
          <PayoutAccount />
        </section>
      </Modal>
    </>
  );
}
