import { MIN_AGE, VENDOR_FEE_PERCENT } from '@storefront/domain/accounts.ts';
import { Modal } from '../../../ui/modal.tsx';
import { FormAlert, ProgressButton } from './form-fields.tsx';

interface TermsModalProps {
  open: boolean;
  onClose: () => void;
  agreed: boolean;
  onAgreedChange: (agreed: boolean) => void;
  onConfirm: () => void;
  error: string | null;
  pending: boolean;
}

/** Spec section 2, Signup: the Terms of Service, an agree checkbox, and the real create button. */
export function TermsModal({ open, onClose, agreed, onAgreedChange, onConfirm, error, pending }: TermsModalProps) {
  return (
    <Modal open={open} onClose={onClose} title="Terms of Service">
      <div className="terms-modal__body">
        <ul className="terms-list">
          <li>Vendor accounts (Artist, SPNCaster, Producer, DJ, record label) pay a fee of {VENDOR_FEE_PERCENT}% on all transactions.</li>
          <li>All sales are final.</li>
          <li>You must be {MIN_AGE} or older to create an account.</li>
        </ul>
        <label className="auth-check">
          <input type="checkbox" checked={agreed} onChange={(event) => onAgreedChange(event.target.checked)} />
          <span>I have read and agree to the Terms of Service.</span>
        </label>
        <FormAlert message={error} />
        <div className="auth-actions">
          <ProgressButton type="button" pending={pending} pendingLabel="Creating account…" disabled={pending} onClick={onConfirm}>
            Agree and Create Account
          </ProgressButton>
        </div>
      </div>
    </Modal>
  );
}
