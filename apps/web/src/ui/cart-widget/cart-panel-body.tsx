import { useState } from 'react';
import { useNavigate } from '../../lib/router.tsx';
import { cartTotalCents } from '@storefront/domain/cart.ts';
import { formatUsd } from '@storefront/domain/catalog.ts';
import { CHECKOUT_MESSAGES } from '@storefront/domain/pricing.ts';
import { cartStore, useCart } from '../../lib/cart.ts';
import { useSession } from '../../lib/session.ts';
import { writeWalletPreference } from '../../lib/wallet-preference.ts';
import { Modal } from '../modal.tsx';
import { CartLines } from './cart-lines.tsx';
import { paths } from '../../lib/paths.ts';

/**
 * The cart panel's contents (spec sections 2 and 4): lines, total, Checkout and Clear.
 * Checkout does nothing for an empty cart, sends signed-out visitors to log in first and
 * asks signed-in shoppers 'Checkout with my wallet?', remembering the answer.
 */
export function CartPanelBody({ onFocusLost, onClose }: { onFocusLost: () => void; onClose: () => void }) {
  const cart = useCart();
  const { isSignedIn } = useSession();
  const navigate = useNavigate();
  const [askWallet, setAskWallet] = useState(false);
  const empty = cart.lines.length === 0;

  const checkout = () => {
    if (empty || isSignedIn === undefined) return;
    if (!isSignedIn) {
      void navigate(paths.login, { state: { from: paths.checkout } });
      return;
    }
    setAskWallet(true);
  };

  const answer = (useWallet: boolean) => {
    writeWalletPreference(useWallet ? 'wallet' : 'stripe');
    setAskWallet(false);
    // Already on /checkout the path does not change, which would leave the panel open.
    onClose();
    void navigate(paths.checkout);
  };

  return (
    <>
      {empty ? <p className="cart-panel__empty">{CHECKOUT_MESSAGES.emptyCart}</p> : <CartLines lines={cart.lines} onLineRemoved={onFocusLost} />}
      <p className="cart-panel__total">
        <span>Total</span>
        <span>{formatUsd(cartTotalCents(cart))}</span>
      </p>
      <div className="cart-panel__actions">
        <button type="button" className="button" aria-disabled={empty || isSignedIn === undefined || undefined} onClick={checkout}>
          Checkout
        </button>
        <button
          type="button"
          className="button button--secondary"
          disabled={empty}
          onClick={() => {
            cartStore.clear();
            // Clear is disabled once the cart is empty, and a disabled button loses focus.
            onFocusLost();
          }}
        >
          Clear
        </button>
      </div>
      <Modal open={askWallet} onClose={() => setAskWallet(false)} title={CHECKOUT_MESSAGES.walletPrompt}>
        <p className="cart-wallet-prompt__text">Your wallet credit pays first; anything left is charged to your card. You can change this at checkout.</p>
        <div className="cart-panel__actions">
          <button type="button" className="button" onClick={() => answer(true)}>
            Yes
          </button>
          <button type="button" className="button button--secondary" onClick={() => answer(false)}>
            No
          </button>
        </div>
      </Modal>
    </>
  );
}
