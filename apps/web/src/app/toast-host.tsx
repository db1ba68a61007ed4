import { useEffect, useState, type ComponentType } from 'react';
import type { ToastContainerProps } from 'react-toastify';
import { loadToastify, useToastsWanted } from '../lib/toast.ts';
import { TOAST_AUTO_CLOSE_MS } from './config/site.ts';

/** Alt+T moves focus to the newest notification (spec section 9). */
const isToastHotKey = (event: KeyboardEvent) => event.altKey && event.code === 'KeyT';

/**
 * The global toast container (spec section 2: top-center, auto-close 1800 ms, no progress
 * bar, dark theme), mounted with the first toast; react-toastify keeps toasts sent before
 * it mounts and shows them then.
 */
export function ToastHost() {
  const wanted = useToastsWanted();
  const [Container, setContainer] = useState<ComponentType<ToastContainerProps> | null>(null);

  useEffect(() => {
    if (!wanted) return undefined;
    let mounted = true;
    loadToastify().then(
      (module) => {
        if (mounted) setContainer(() => module.ToastContainer);
      },
      // show() in lib/toast.ts reports the failure with the message that was lost.
      () => undefined,
    );
    return () => {
      mounted = false;
    };
  }, [wanted]);

  if (!Container) return null;
  return <Container position="top-center" autoClose={TOAST_AUTO_CLOSE_MS} hideProgressBar theme="dark" hotKeys={isToastHotKey} aria-label="Notifications Alt+T" />;
}
