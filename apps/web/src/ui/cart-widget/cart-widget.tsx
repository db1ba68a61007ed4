import { Component, lazy, Suspense, useEffect, useId, useRef, useState, type ReactNode } from 'react';
import { useLocation } from '../../lib/router.tsx';
import { useCart } from '../../lib/cart.ts';
import './cart-widget.css';

// The panel's code (prices, messages, the wallet dialog) loads on first use, so every
// page's first load stays small; pointing at the icon starts fetching it.
const loadPanelBody = () => import('./cart-panel-body.tsx');
const CartPanelBody = lazy(() => loadPanelBody().then((module) => ({ default: module.CartPanelBody })));

export function cartButtonLabel(count: number): string {
  return `Cart, ${count} ${count === 1 ? 'item' : 'items'}`;
}

/**
 * The header's cart (spec section 2): an icon with the count, top left, that opens a
 * panel titled Cart. Escape or a click elsewhere closes it; focus goes to the panel's
 * title on opening and back to the icon on closing.
 */
export function CartWidget() {
  const cart = useCart();
  const { pathname } = useLocation();
  // The panel belongs to the page it was opened on, so any navigation closes it.
  const [openOnPath, setOpenOnPath] = useState<string | null>(null);
  const open = openOnPath === pathname;
  const rootRef = useRef<HTMLDivElement>(null);
  const toggleRef = useRef<HTMLButtonElement>(null);
  const headingRef = useRef<HTMLHeadingElement>(null);
  const panelId = useId();
  const headingId = useId();

  useEffect(() => {
    if (open) headingRef.current?.focus();
  }, [open]);

  useEffect(() => {
    if (!open) return undefined;
    const closeOnOutsideClick = (event: PointerEvent) => {
      if (event.target instanceof Node && rootRef.current?.contains(event.target)) return;
      setOpenOnPath(null);
    };
    // On the document, so Escape works wherever focus is (even on the page body).
    const closeOnEscape = (event: globalThis.KeyboardEvent) => {
      if (event.key !== 'Escape' || event.defaultPrevented) return;
      // A dialog opened from the panel handles its own Escape, and only it closes.
      if (event.target instanceof Element && event.target.closest('dialog')) return;
      setOpenOnPath(null);
      toggleRef.current?.focus();
    };
    document.addEventListener('pointerdown', closeOnOutsideClick);
    document.addEventListener('keydown', closeOnEscape);
    return () => {
      document.removeEventListener('pointerdown', closeOnOutsideClick);
      document.removeEventListener('keydown', closeOnEscape);
    };
  }, [open]);

  const close = () => {
    setOpenOnPath(null);
    toggleRef.current?.focus();
  };

  return (
    <div className="cart-widget" ref={rootRef}>
      <button
        ref={toggleRef}
        type="button"
        className="icon-button cart-widget__toggle"
        aria-label={cartButtonLabel(cart.qty)}
        aria-expanded={open}
        aria-controls={panelId}
        onPointerEnter={() => void loadPanelBody()}
        onFocus={() => void loadPanelBody()}
        onClick={() => setOpenOnPath(open ? null : pathname)}
      >
        <CartIcon />
        {cart.qty > 0 ? (
          <span className="cart-widget__count" aria-hidden="true">
            {cart.qty > 99 ? '99+' : cart.qty}
          </span>
        ) : null}
      </button>
      <div id={panelId} className="popover cart-panel" role="dialog" aria-labelledby={headingId} hidden={!open}>
        <div className="cart-panel__header">
          <h2 id={headingId} ref={headingRef} className="cart-panel__title" tabIndex={-1}>
            Cart
          </h2>
          <button type="button" className="close-button" aria-label="Close cart" onClick={close}>
            ×
          </button>
        </div>
        {open ? (
          <PanelLoadBoundary>
            <Suspense fallback={<p className="cart-panel__empty">Loading your cart…</p>}>
              <CartPanelBody onFocusLost={() => headingRef.current?.focus()} onClose={close} />
            </Suspense>
          </PanelLoadBoundary>
        ) : null}
      </div>
    </div>
  );
}

/** A panel whose code did not arrive says so; opening the cart again tries again. */
class PanelLoadBoundary extends Component<{ children: ReactNode }, { failed: boolean }> {
  override state = { failed: false };

  static getDerivedStateFromError(): { failed: boolean } {
    return { failed: true };
  }

  override render() {
    if (!this.state.failed) return this.props.children;
    return (
      <p role="alert" className="cart-panel__empty">
        The cart could not be loaded. Check your connection and open it again.
      </p>
    );
  }
}

function CartIcon() {
  return (
    <svg className="cart-widget__icon" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true" focusable="false">
      <path
        d="M3 4h2.2l2.4 11.2a1.5 1.5 0 0 0 1.5 1.2h8.6a1.5 1.5 0 0 0 1.5-1.1L21 8H6.3"
        fill="none"
        stroke="currentColor"
        strokeWidth="1.8"
        strokeLinecap="round"
        strokeLinejoin="round"
      />
      <circle cx="9.5" cy="20" r="1.4" fill="currentColor" />
      <circle cx="17.5" cy="20" r="1.4" fill="currentColor" />
    </svg>
  );
}
