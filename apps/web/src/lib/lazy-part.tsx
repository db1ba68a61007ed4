import { Component, Suspense, use, useState, type ComponentType, type ReactNode } from 'react';
import { ErrorState } from '../ui/error-state.tsx';
import { LoadingRegion, SkeletonText } from '../ui/skeleton.tsx';

export interface LazyPart<P extends object> {
  /** Starts loading the code (say, as soon as it is likely to be needed); safe to call often. */
  preload: () => void;
  /** Renders the part, with a placeholder while its code arrives and a Retry if it fails. */
  Part: ComponentType<P>;
}

/**
 * A piece of a page whose code only some visitors need (an admin's edit form, a signed-in
 * shopper's checkout form), so the page's own first download stays small. A failed load is
 * forgotten, so Retry imports it afresh.
 */
export function lazyPart<P extends object>(load: () => Promise<ComponentType<P>>, texts: { loading: string; failed: string }): LazyPart<P> {
  let loading: Promise<ComponentType<P>> | null = null;
  const start = () => {
    loading ??= load().catch((error: unknown) => {
      loading = null;
      throw error;
    });
    return loading;
  };

  function Loaded({ code, props }: { code: Promise<ComponentType<P>>; props: P }) {
    const Loaded = use(code);
    return <Loaded {...props} />;
  }

  function Part(props: P) {
    const [code, setCode] = useState(start);
    return (
      <PartLoadBoundary failed={texts.failed} onRetry={() => setCode(start)}>
        <Suspense
          fallback={
            <LoadingRegion label={texts.loading}>
              <SkeletonText lines={6} />
            </LoadingRegion>
          }
        >
          <Loaded code={code} props={props} />
        </Suspense>
      </PartLoadBoundary>
    );
  }

  return { preload: () => void start().catch(() => undefined), Part };
}

interface BoundaryProps {
  failed: string;
  onRetry: () => void;
  children: ReactNode;
}

class PartLoadBoundary extends Component<BoundaryProps, { failed: boolean }> {
  override state = { failed: false };

  // React itself reports the caught error to the console, so nothing is logged here.
  static getDerivedStateFromError(): { failed: boolean } {
    return { failed: true };
  }

  retry = () => {
    this.props.onRetry();
    this.setState({ failed: false });
  };

  override render() {
    if (!this.state.failed) return this.props.children;
    return <ErrorState title={this.props.failed} message="Check your connection and try again." onRetry={this.retry} />;
  }
}
