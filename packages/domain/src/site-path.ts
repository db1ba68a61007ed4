/**
 * A path on this site only: it starts with one "/" and never "//" or "/\", which browsers
 * read as another origin ("//evil.example"). Every redirect target a client names goes
 * through here, so a redirect never leads elsewhere.
 */
export function isSameSitePath(value: unknown): value is string {
  return typeof value === 'string' && value.startsWith('/') && !value.startsWith('//') && !value.startsWith('/\\');
}
