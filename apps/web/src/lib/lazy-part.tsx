import { Suspense, use, useState, type ComponentType } from 'react';
import { LoadFailureBoundary } from '../ui/load-failure-boundary.tsx';
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
      <LoadFailureBoundary title={texts.failed} onRetry={() => setCode(start)}>
        <Suspense
          fallback={
            <LoadingRegion label={texts.loading}>
              <SkeletonText lines={6} />
            </LoadingRegion>
          }
        >
          <Loaded code={code} props={props} />
        </Suspense>
      </LoadFailureBoundary>
    );
  }

  return { preload: () => void start().catch(() => undefined), Part };
}
