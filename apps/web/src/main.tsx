// First of all styles: every feature's own rules come later and override the shared ones.
import './ui/forms.css';
import './ui/surfaces.css';
import { startTransition } from 'react';
import { createRoot, hydrateRoot } from 'react-dom/client';
import { BrowserRouter } from './lib/router.tsx';
import { App } from './app/app.tsx';
import { SERVER_RENDERED_ATTRIBUTE } from '@storefront/domain/page-data.ts';
import './app/styles.css';

const container = document.getElementById('root');
if (!container) throw new Error('index.html has no #root element.');

const app = <App router={BrowserRouter} />;
if (container.hasAttribute(SERVER_RENDERED_ATTRIBUTE)) {
  // A public page the server rendered (decision 062): React takes over its HTML, with the
  // page's data already in the query cache (lib/page-data.ts), so nothing is fetched again.
  hydrateRoot(container, app);
} else {
  const root = createRoot(container);
  // In a transition, the first render works in slices the browser can interrupt rather than
  // one long task; index.html's shell stays on screen meanwhile.
  startTransition(() => root.render(app));
}
