import { QueryClientProvider, type QueryClient } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { useLiveUpdates } from '../lib/live.ts';
import { seedPageData } from '../lib/page-data.ts';
import { createQueryClient } from '../lib/query-client.ts';
import { ToastHost } from './toast-host.tsx';

/** `client`: the server's rendering passes its own, seeded with the page's data (decision 062). */
export function AppProviders({ children, client }: { children: ReactNode; client?: QueryClient }) {
  const [queryClient] = useState(() => client ?? seedPageData(createQueryClient()));
  return (
    <QueryClientProvider client={queryClient}>
      <LiveUpdates />
      {children}
      <ToastHost />
    </QueryClientProvider>
  );
}

function LiveUpdates() {
  useLiveUpdates();
  return null;
}
