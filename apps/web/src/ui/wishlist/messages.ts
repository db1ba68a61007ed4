/** The wishlist's sentences (decision 076), shared with the browser tests. */
export const WISHLIST_TEXTS = {
  add: (name: string) => `Add ${name} to your wishlist`,
  remove: (name: string) => `Remove ${name} from your wishlist`,
  signIn: 'Log in to keep a wishlist',
  failed: 'Could not change your wishlist.',
} as const;
