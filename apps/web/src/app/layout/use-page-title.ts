import { useEffect } from 'react';
import { useMatches } from 'react-router';
import { documentTitle } from '../config/site.ts';
import type { RouteHandle } from '../router.tsx';

function isRouteHandle(handle: unknown): handle is RouteHandle {
  return typeof handle === 'object' && handle !== null && typeof (handle as RouteHandle).title === 'string';
}

/** Names the browser tab after the deepest route that declares a title. */
export function usePageTitle() {
  const matches = useMatches();
  const title = matches.map((match) => match.handle).findLast(isRouteHandle)?.title;
  useEffect(() => {
    document.title = documentTitle(title);
  }, [title]);
}
