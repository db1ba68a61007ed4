/**
 * The app's router: the part of react-router's declarative mode this app uses, under the
 * same names and with the same behaviour (decision 037). react-router weighed 15 KB gzipped
 * on every first load; this is about 1.5 KB. What it leaves out, because no page needs it:
 * loaders and actions, nested paths below a layout, relative route paths, basename, blockers.
 *
 * - The address is the browser's: history.pushState/replaceState with `{ key, usr }` as
 *   react-router writes it, so a reload keeps each entry's key (scroll positions) and state.
 * - Every change of page is rendered in a transition, as react-router's <BrowserRouter>
 *   does: the page on screen stays until the next one is ready (lazy chunks suspend).
 */
import {
  createContext,
  startTransition,
  useCallback,
  useContext,
  useEffect,
  useLayoutEffect,
  useMemo,
  useState,
  type AnchorHTMLAttributes,
  type MouseEvent,
  type ReactNode,
  type Ref,
} from 'react';
import { createKey, matchRoutes, resolveTo, shouldHandleClick, type Params, type RouteObject, type To } from './router-core.ts';

export type { Params, RouteObject, To } from './router-core.ts';

export type NavigationType = 'POP' | 'PUSH' | 'REPLACE';

export interface Location {
  pathname: string;
  search: string;
  hash: string;
  /** What the navigation that made this entry passed as `state` (null for none). */
  state: unknown;
  /** Stable for the history entry, also across a reload (given to an entry loaded anew at start). */
  key: string;
}

export interface NavigateOptions {
  replace?: boolean;
  state?: unknown;
  /** Keep the scroll position (a filter changing the list below it); see useScrollRestoration. */
  preventScrollReset?: boolean;
}

export interface NavigateFunction {
  (to: To, options?: NavigateOptions): void;
  (delta: number): void;
}

interface RouterState {
  location: Location;
  navigationType: NavigationType;
  preventScrollReset: boolean;
}

interface RouterValue extends RouterState {
  navigate: NavigateFunction;
}

/** What react-router keeps in history.state: the entry's key and the caller's state. */
interface HistoryEntry {
  key: string;
  usr: unknown;
}

const RouterContext = createContext<RouterValue | null>(null);
const RouteContext = createContext<{ params: Params; outlet: ReactNode }>({ params: {}, outlet: null });

/**
 * Gives the entry a page was loaded into a key of its own, kept across a reload. Without
 * it every entry loaded anew (an address typed, a link followed before the page hydrated)
 * would share "default", and the next page loaded anew would be restored to the offset the
 * one before it was left at (useScrollRestoration).
 */
function keyLoadedEntry(): void {
  const entry = window.history.state as Partial<HistoryEntry> | null;
  if (typeof entry?.key === 'string') return;
  window.history.replaceState({ ...entry, key: createKey(), usr: entry?.usr ?? null } satisfies HistoryEntry, '');
}

function readLocation(): Location {
  const { pathname, search, hash } = window.location;
  const entry = window.history.state as Partial<HistoryEntry> | null;
  return { pathname, search, hash, state: entry?.usr ?? null, key: typeof entry?.key === 'string' ? entry.key : 'default' };
}

function useRouter(hook: string): RouterValue {
  const router = useContext(RouterContext);
  if (!router) throw new Error(`${hook}() is used outside <BrowserRouter>.`);
  return router;
}

/** Keeps the page in step with the address bar: links, navigate(), Back and Forward. */
export function BrowserRouter({ children }: { children: ReactNode }) {
  const [state, setState] = useState<RouterState>(() => {
    keyLoadedEntry();
    return { location: readLocation(), navigationType: 'POP', preventScrollReset: false };
  });

  const show = useCallback((navigationType: NavigationType, preventScrollReset = false) => {
    const location = readLocation();
    startTransition(() => setState({ location, navigationType, preventScrollReset }));
  }, []);

  useLayoutEffect(() => {
    const onPop = () => show('POP');
    window.addEventListener('popstate', onPop);
    return () => window.removeEventListener('popstate', onPop);
  }, [show]);

  const navigate = useCallback(
    (to: To | number, options: NavigateOptions = {}) => {
      if (typeof to === 'number') {
        window.history.go(to);
        return;
      }
      const entry: HistoryEntry = { key: createKey(), usr: options.state ?? null };
      const href = resolveTo(to, window.location.href);
      if (options.replace) window.history.replaceState(entry, '', href);
      else window.history.pushState(entry, '', href);
      show(options.replace ? 'REPLACE' : 'PUSH', options.preventScrollReset);
    },
    [show],
  ) as NavigateFunction;

  const value = useMemo(() => ({ ...state, navigate }), [state, navigate]);
  return <RouterContext.Provider value={value}>{children}</RouterContext.Provider>;
}

/**
 * The router for a page rendered on the server (decision 062): the address is fixed, and
 * nothing navigates (effects, where navigation happens, do not run there).
 */
export function StaticRouter({ location, children }: { location: string; children: ReactNode }) {
  const value = useMemo<RouterValue>(() => {
    const url = new URL(location, 'http://server.invalid');
    return {
      location: { pathname: url.pathname, search: url.search, hash: '', state: null, key: 'default' },
      navigationType: 'POP',
      preventScrollReset: false,
      navigate: (() => undefined) as NavigateFunction,
    };
  }, [location]);
  return <RouterContext.Provider value={value}>{children}</RouterContext.Provider>;
}

export function useLocation(): Location {
  return useRouter('useLocation').location;
}

export function useNavigationType(): NavigationType {
  return useRouter('useNavigationType').navigationType;
}

/** True when the navigation that showed this location asked to keep the scroll position. */
export function usePreventScrollReset(): boolean {
  return useRouter('usePreventScrollReset').preventScrollReset;
}

export function useNavigate(): NavigateFunction {
  return useRouter('useNavigate').navigate;
}

export function useParams(): Params {
  return useContext(RouteContext).params;
}

/** The query string as URLSearchParams, and a setter that navigates to the new one. */
export function useSearchParams(): [URLSearchParams, (next: URLSearchParams | string | Record<string, string>, options?: NavigateOptions) => void] {
  const { location, navigate } = useRouter('useSearchParams');
  const searchParams = useMemo(() => new URLSearchParams(location.search), [location.search]);
  const setSearchParams = useCallback(
    (next: URLSearchParams | string | Record<string, string>, options?: NavigateOptions) => {
      const search = new URLSearchParams(next).toString();
      navigate({ search: search ? `?${search}` : '' }, options);
    },
    [navigate],
  );
  return [searchParams, setSearchParams];
}

/** The element of the route that matches the address, inside the elements of its layouts. */
export function useRoutes(routes: RouteObject[]): ReactNode {
  const { pathname } = useRouter('useRoutes').location;
  const matches = useMemo(() => matchRoutes(routes, pathname), [routes, pathname]);
  if (!matches) return null;
  const params = matches.at(-1)?.params ?? {};
  return matches.reduceRight<ReactNode>((outlet, match) => <RouteContext.Provider value={{ params, outlet }}>{match.route.element}</RouteContext.Provider>, null);
}

/** Where a layout shows the page of the child route that matched. */
export function Outlet() {
  return useContext(RouteContext).outlet;
}

/** Goes to `to` once rendered (a page that needs a signed-in visitor sends others to /login). */
export function Navigate({ to, replace, state }: { to: To; replace?: boolean; state?: unknown }) {
  const { navigate } = useRouter('Navigate');
  useEffect(() => {
    navigate(to, { replace, state });
    // Once per mount, like react-router's: a re-render must not navigate again.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
  return null;
}

export interface LinkProps extends Omit<AnchorHTMLAttributes<HTMLAnchorElement>, 'href'>, NavigateOptions {
  to: To;
  ref?: Ref<HTMLAnchorElement>;
}

/**
 * An <a> with a real href (open in a new tab, copy the address) whose plain click changes
 * the page without a reload. A link to the address already shown replaces its entry.
 */
export function Link({ to, replace, state, preventScrollReset, onClick, ref, ...anchor }: LinkProps) {
  const { navigate, location } = useRouter('Link');
  const href = resolveTo(to, location);
  const handleClick = (event: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(event);
    if (!shouldHandleClick(event, anchor.target)) return;
    event.preventDefault();
    const here = location.pathname + location.search + location.hash;
    navigate(to, { replace: replace ?? href === here, state, preventScrollReset });
  };
  return <a {...anchor} ref={ref} href={href} onClick={handleClick} />;
}

/** A Link that says aria-current="page" on its own page and below it. */
export function NavLink({ to, ...props }: LinkProps) {
  const { pathname } = useRouter('NavLink').location;
  const target = resolveTo(to, { pathname: '/', search: '', hash: '' }).split(/[?#]/)[0] ?? '/';
  const current = pathname === target || (target !== '/' && pathname.startsWith(`${target}/`));
  return <Link to={to} aria-current={current ? 'page' : undefined} {...props} />;
}
