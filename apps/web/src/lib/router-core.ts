/**
 * The router's rules that need no browser (router-core.test.ts): matching an address to a
 * route, resolving a link's target, and which clicks a link handles itself.
 */
import type { ReactNode } from 'react';

export type Params = Readonly<Record<string, string | undefined>>;

/** A route: a page at `path` (":name" segments, or "*" for anything), or a layout around `children`. */
export interface RouteObject {
  path?: string;
  element: ReactNode;
  children?: RouteObject[];
}

/** An address, or the parts of one to change (`{ search }` keeps the page, new query). */
export type To = string | { pathname?: string; search?: string; hash?: string };

export interface RouteMatch {
  route: RouteObject;
  params: Params;
}

interface Place {
  pathname: string;
  search: string;
  hash: string;
}

const SPLAT = '*';

function segments(path: string): string[] {
  return path.split('/').filter((segment) => segment !== '');
}

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    // A malformed escape (%E0%A4%A) is matched as written rather than failing the page.
    return segment;
  }
}

/**
 * The params of `pattern` for `pathname`, or null when it does not match. Like
 * react-router: case-insensitive static segments, a trailing slash ignored, ":name"
 * matches one non-empty segment (decoded), "*" the rest (as params["*"]).
 */
export function matchPath(pattern: string, pathname: string): Params | null {
  const wanted = segments(pattern);
  const given = segments(pathname);
  const params: Record<string, string> = {};
  for (const [index, part] of wanted.entries()) {
    if (part === SPLAT) {
      params[SPLAT] = given.slice(index).map(decode).join('/');
      return params;
    }
    const segment = given[index];
    if (segment === undefined) return null;
    if (part.startsWith(':')) params[part.slice(1)] = decode(segment);
    else if (part.toLowerCase() !== decode(segment).toLowerCase()) return null;
  }
  return wanted.length === given.length ? params : null;
}

function matchIn(routes: RouteObject[], pathname: string, splats: boolean): RouteMatch[] | null {
  for (const route of routes) {
    if (route.children) {
      const below = matchIn(route.children, pathname, splats);
      if (below) return [{ route, params: below.at(-1)?.params ?? {} }, ...below];
      continue;
    }
    if (route.path === undefined || (route.path === SPLAT) !== splats) continue;
    const params = matchPath(route.path, pathname);
    if (params) return [{ route, params }];
  }
  return null;
}

/**
 * The chain of routes (layouts first, the page last) that shows `pathname`. A page's own
 * path wins over "*" wherever they stand; among the others the first listed wins (the
 * app's paths never overlap, as react-router's ranking would otherwise decide).
 */
export function matchRoutes(routes: RouteObject[], pathname: string): RouteMatch[] | null {
  return matchIn(routes, pathname, false) ?? matchIn(routes, pathname, true);
}

/** The address (path, query, fragment) a link or navigate() call goes to, from `base`. */
export function resolveTo(to: To, base: string | Place): string {
  const from = typeof base === 'string' ? new URL(base) : new URL(`${base.pathname}${base.search}${base.hash}`, 'http://router.invalid');
  if (typeof to === 'string') {
    const url = new URL(to, from);
    return `${url.pathname}${url.search}${url.hash}`;
  }
  const pathname = to.pathname ?? from.pathname;
  const search = withPrefix(to.search, '?');
  const hash = withPrefix(to.hash, '#');
  return `${pathname}${search}${hash}`;
}

function withPrefix(part: string | undefined, prefix: string): string {
  if (!part || part === prefix) return '';
  return part.startsWith(prefix) ? part : `${prefix}${part}`;
}

/** A plain left click on a link of this tab; a modified click or another target is the browser's. */
export function shouldHandleClick(
  event: { button: number; metaKey: boolean; altKey: boolean; ctrlKey: boolean; shiftKey: boolean; defaultPrevented: boolean },
  target: string | undefined,
): boolean {
  if (event.defaultPrevented || event.button !== 0) return false;
  if (target && target !== '_self') return false;
  return !(event.metaKey || event.altKey || event.ctrlKey || event.shiftKey);
}

/** A history entry's key: react-router's form (8 base-36 characters). */
export function createKey(): string {
  return Math.random().toString(36).slice(2, 10).padEnd(8, '0');
}
