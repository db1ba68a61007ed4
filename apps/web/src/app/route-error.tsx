import { useRouteError } from 'react-router';
import { ErrorState } from '../ui/error-state.tsx';

/** Last resort when the shell itself fails: a heading and a way to start again. */
export function RouteError() {
  const error = useRouteError();
  const message = error instanceof Error ? error.message : undefined;
  return (
    <main className="route-error" id="main-content">
      <ErrorState
        headingLevel={1}
        title="Something went wrong."
        message={message ?? 'Reload the page to try again.'}
        onRetry={() => window.location.reload()}
      />
    </main>
  );
}
