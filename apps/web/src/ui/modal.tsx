import { useEffect, useId, useRef, type ReactNode } from 'react';
import './modal.css';

interface ModalProps {
  open: boolean;
  /** Called on Escape, a backdrop click or the close button; the owner sets `open` to false. */
  onClose: () => void;
  title: string;
  children: ReactNode;
}

/**
 * A modal dialog on the native <dialog> element, which traps focus, restores it on close
 * and makes the rest of the page inert.
 */
export function Modal({ open, onClose, title, children }: ModalProps) {
  const dialogRef = useRef<HTMLDialogElement>(null);
  const titleId = useId();

  useEffect(() => {
    const dialog = dialogRef.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);

  return (
    <dialog
      ref={dialogRef}
      className="modal"
      aria-labelledby={titleId}
      onCancel={(event) => {
        // Escape: let the owner decide, so `open` stays the single source of truth.
        event.preventDefault();
        onClose();
      }}
      onClick={(event) => {
        // The content fills the dialog box, so a click on the dialog itself is on the backdrop.
        if (event.target === event.currentTarget) onClose();
      }}
    >
      {open ? (
        <div className="modal__content">
          <div className="modal__header">
            <h2 id={titleId} className="modal__title">
              {title}
            </h2>
            <button type="button" className="close-button" aria-label="Close" onClick={onClose}>
              ×
            </button>
          </div>
          {children}
        </div>
      ) : null}
    </dialog>
  );
}
