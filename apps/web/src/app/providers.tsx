import { QueryClientProvider } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { useLiveUpdates } from '../lib/live.ts';
import { seedPageData } from '../lib/page-data.ts';
import { createQueryClient } from '../lib/query-client.ts';
import { ToastHost } from './toast-host.tsx';

export function AppProviders({ children }: { children: ReactNode }) {
  const [queryClient] = useState(() => seedPageData(createQueryClient()));
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
