import { useSyncExternalStore } from 'react';

const noSubscription = () => () => {};

/**
 * False while React hydrates a page the server rendered (decision 062), true after and on any
 * page rendered in the browser alone. A server-rendered control shows before its code has
 * arrived; a press on it then reaches no handler (React drops it, and a radio or a field keeps a
 * value React does not know). Such controls stay disabled until this is true.
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    noSubscription,
    () => true,
    () => false,
  );
}
