import { useSyncExternalStore } from 'react';

/**
 * The global toast (spec section 2): react-toastify and its styles load with the first
 * notification, so no page's first load carries them. Features call `toast.success(...)`
 * here as they would react-toastify's `toast` (lint refuses importing it elsewhere).
 */
export const loadToastify = () => import('react-toastify');

type ToastKind = 'success' | 'error' | 'warning';

let wanted = false;
const listeners = new Set<() => void>();

/** Asks the app's toast host to mount its container; toasts sent before it mounts wait for it. */
function requestToasts() {
  if (wanted) return;
  wanted = true;
  for (const listener of listeners) listener();
}

function show(kind: ToastKind, message: string) {
  requestToasts();
  loadToastify().then(
    ({ toast: toastify }) => toastify[kind](message),
    (error: unknown) => console.warn(`Could not show the notification "${message}":`, error),
  );
}

export const toast = {
  success: (message: string) => show('success', message),
  error: (message: string) => show('error', message),
  warning: (message: string) => show('warning', message),
};

/** Whether a toast was sent: the container should be on the page. */
export function useToastsWanted(): boolean {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => wanted,
    () => false,
  );
}
