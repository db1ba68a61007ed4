import { useQueryClient, type QueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useEffect, useState, type ComponentType } from 'react';
import { useParams, type Params } from '../lib/router.tsx';
import { LoadFailureBoundary } from '../ui/load-failure-boundary.tsx';
import { Spinner } from '../ui/spinner.tsx';
import { LAZY_LOAD_TIMEOUT_MS } from './config/site.ts';
import './lazy-page.css';

export const PAGE_LOAD_FAILED = 'This page could not be loaded.';

class LazyLoadTimeoutError extends Error {
  constructor(ms: number) {
    super(`The page's code did not arrive within ${ms / 1000} s.`);
    this.name = 'LazyLoadTimeoutError';
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new LazyLoadTimeoutError(ms)), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

/** Starts loading what a page will ask for, while its code is still on the way. */
export type PrefetchPageData = (queryClient: QueryClient, params: Readonly<Params>) => void;

/**
 * A route component whose code is fetched on first visit. A chunk that fails or takes
 * longer than the spec's 120 s shows a message with a Retry button that imports it again.
 * `prefetch` starts the page's data at the same time as its code, not after it.
 */
export function lazyPage(load: () => Promise<ComponentType>, options: { prefetch?: PrefetchPageData } = {}): ComponentType {
  // Shared by every mount of this route, so a page loads once per session; a failed
  // attempt is forgotten, so the next visit (or Retry) imports afresh.
  let current: ComponentType | null = null;

  function createLazy(): ComponentType {
    const Lazy = lazy(async () => {
      try {
        return { default: await withTimeout(load(), LAZY_LOAD_TIMEOUT_MS) };
      } catch (error) {
        if (current === Lazy) current = null;
        throw error;
      }
    });
    current = Lazy;
    return Lazy;
  }

  function LazyPage() {
    const [Page, setPage] = useState<ComponentType>(() => current ?? createLazy());
    const queryClient = useQueryClient();
    const params = useParams();
    const { prefetch } = options;
    const paramsKey = JSON.stringify(params);
    useEffect(() => {
      prefetch?.(queryClient, JSON.parse(paramsKey) as Params);
    }, [prefetch, queryClient, paramsKey]);
    return (
      <LoadFailureBoundary headingLevel={1} title={PAGE_LOAD_FAILED} onRetry={() => setPage(() => current ?? createLazy())}>
        <Suspense fallback={<PageLoading />}>
          <Page />
        </Suspense>
      </LoadFailureBoundary>
    );
  }
  return LazyPage;
}

function PageLoading() {
  return (
    <div className="page-loading">
      <Spinner label="Loading page…" />
    </div>
  );
}
