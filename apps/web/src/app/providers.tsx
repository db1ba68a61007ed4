import { QueryClientProvider } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { ToastContainer } from 'react-toastify';
import { useLiveUpdates } from '../lib/live.ts';
import { createQueryClient } from '../lib/query-client.ts';
import { TOAST_AUTO_CLOSE_MS } from './config/site.ts';

/** Alt+T moves focus to the newest notification (spec section 9). */
const isToastHotKey = (event: KeyboardEvent) => event.altKey && event.code === 'KeyT';

export function AppProviders({ children }: { children: ReactNode }) {
  const [queryClient] = useState(createQueryClient);
  return (
    <QueryClientProvider client={queryClient}>
      <LiveUpdates />
      {children}
      <ToastContainer
        position="top-center"
        autoClose={TOAST_AUTO_CLOSE_MS}
        hideProgressBar
        theme="dark"
        hotKeys={isToastHotKey}
        aria-label="Notifications Alt+T"
      />
    </QueryClientProvider>
  );
}

function LiveUpdates() {
  useLiveUpdates();
  return null;
}
