import { Component, type ReactNode } from 'react';
import { useLocation } from '../lib/router.tsx';
import { ErrorState } from '../ui/error-state.tsx';

/**
 * Last resort when the shell itself fails: a heading and a way to start again. The
 * error's own text is for developers (React logs it), never shown to the visitor.
 */
export function RouteError() {
  return (
    <main className="route-error" id="main-content">
      <ErrorState headingLevel={1} title="Something went wrong." message="Reload the page to try again." onRetry={() => window.location.reload()} />
    </main>
  );
}

interface BoundaryProps {
  pathname: string;
  children: ReactNode;
}

interface BoundaryState {
  /** The address shown; the error is forgotten when it changes. */
  pathname: string;
  failure: { error: unknown } | null;
}

/** Shows RouteError in place of the whole frame; moving to another address tries again. */
class ShellErrorBoundary extends Component<BoundaryProps, BoundaryState> {
  override state: BoundaryState = { pathname: this.props.pathname, failure: null };

  // React itself reports the caught error to the console, so nothing is logged here.
  static getDerivedStateFromError(error: unknown): Partial<BoundaryState> {
    return { failure: { error } };
  }

  static getDerivedStateFromProps(props: BoundaryProps, state: BoundaryState): Partial<BoundaryState> | null {
    return props.pathname === state.pathname ? null : { pathname: props.pathname, failure: null };
  }

  override render() {
    return this.state.failure ? <RouteError /> : this.props.children;
  }
}

/** Catches what the pages' own boundaries do not (the header, the footer, the layout). */
export function RouteErrorBoundary({ children }: { children: ReactNode }) {
  const { pathname } = useLocation();
  return <ShellErrorBoundary pathname={pathname}>{children}</ShellErrorBoundary>;
}
