import type { QueryClient } from '@tanstack/react-query';
import { StrictMode, type ReactNode } from 'react';
import { AppProviders } from './providers.tsx';
import { RouteErrorBoundary } from './route-error.tsx';
import { AppRoutes } from './router.tsx';

/**
 * The whole app below its router: the browser (main.tsx) and the server's rendering
 * (entry-server.tsx) render this same tree, so hydration finds what the server wrote.
 */
export function App({ router: Router, client }: { router: (props: { children: ReactNode }) => ReactNode; client?: QueryClient }) {
  return (
    <StrictMode>
      <AppProviders client={client}>
        <Router>
          <RouteErrorBoundary>
            <AppRoutes />
          </RouteErrorBoundary>
        </Router>
      </AppProviders>
    </StrictMode>
  );
}
