// First of all styles: every feature's own rules come later and override the shared ones.
import './ui/forms.css';
import './ui/surfaces.css';
import { startTransition, StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter } from './lib/router.tsx';
import { AppProviders } from './app/providers.tsx';
import { RouteErrorBoundary } from './app/route-error.tsx';
import { AppRoutes } from './app/router.tsx';
import './app/styles.css';

const container = document.getElementById('root');
if (!container) throw new Error('index.html has no #root element.');

const root = createRoot(container);
// In a transition, the first render works in slices the browser can interrupt rather than
// one long task; index.html's shell stays on screen meanwhile.
startTransition(() =>
  root.render(
    <StrictMode>
      <AppProviders>
        <BrowserRouter>
          <RouteErrorBoundary>
            <AppRoutes />
          </RouteErrorBoundary>
        </BrowserRouter>
      </AppProviders>
    </StrictMode>,
  ),
);
