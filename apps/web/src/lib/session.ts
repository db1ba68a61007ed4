import { queryOptions, useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useLocation, useNavigate } from './router.tsx';
import { createAuthClient, type CurrentUser } from '@storefront/sdk/auth.ts';
import { functionsClient } from './api-client.ts';
import { toast } from './toast.ts';
import { meKeys } from './query-keys.ts';
import { paths } from './paths.ts';
import { useHydrated } from './hydration.ts';

/** Sign-in, sign-out and reset calls; the session itself lives in an httpOnly cookie. */
export const authClient = createAuthClient({ functions: functionsClient });

const ME_KEY = meKeys.all;

export const SIGN_OUT_FAILED = 'Could not log out. Please try again.';

const isPerUser = (query: { queryKey: readonly unknown[] }) => query.queryKey[0] !== ME_KEY[0];

/** Drops every cached query except the session itself; pages load their data again. */
function forgetUserValues(queryClient: QueryClient) {
  void queryClient.cancelQueries({ predicate: isPerUser });
  queryClient.removeQueries({ predicate: isPerUser });
}

/**
 * Spec section 4, User change: every per-user value resets, then loads again. Call it
 * after a sign-in or sign-out with the new user (or null).
 */
export function resetUserValues(queryClient: QueryClient, user: CurrentUser | null) {
  forgetUserValues(queryClient);
  queryClient.setQueryData(ME_KEY, user);
}

export const meQueryOptions = () =>
  queryOptions({
    queryKey: ME_KEY,
    queryFn: async ({ client }): Promise<CurrentUser | null> => {
      const user = await authClient.me();
      const previous = client.getQueryData<CurrentUser | null>(ME_KEY);
      // Another tab signed in or out: the values cached for the previous user go.
      if (previous !== undefined && previous?.id !== user?.id) forgetUserValues(client);
      return user;
    },
    // A sign-in or sign-out in another tab shows up when the visitor comes back to this one.
    refetchOnWindowFocus: true,
  });

export interface Session {
  user: CurrentUser | null | undefined;
  isLoading: boolean;
  /** Undefined until the server has answered; a failed check counts as signed out. */
  isSignedIn: boolean | undefined;
}

/**
 * The server renders every page signed out ("not known yet"); a session read that answers
 * before a lazy page has hydrated would otherwise render the signed-in page over that HTML
 * (React error 418: an admin's Edit button on /product/:id).
 */
export function useSession(): Session {
  const { data, isPending } = useQuery(meQueryOptions());
  const hydrated = useHydrated();
  if (isPending || !hydrated) return { user: undefined, isLoading: true, isSignedIn: undefined };
  const user = data ?? null;
  return { user, isLoading: false, isSignedIn: user !== null };
}

/**
 * Signs out on the server, goes to /home, then forgets every per-user value (spec
 * section 2, Header: logout always lands on /home). The values go only once /home is on
 * screen: the router changes pages in a transition, and a signed-in page that saw the
 * user vanish first would send the visitor to /login instead.
 */
export function useSignOut() {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const location = useLocation();
  // True from the server's answer until the values are gone (the button then unmounts).
  const [leaving, setLeaving] = useState(false);
  const mutation = useMutation({
    mutationFn: () => authClient.signOut(),
    onSuccess: async () => {
      setLeaving(true);
      await navigate(paths.home);
    },
    onError: (error) => {
      console.warn('Sign-out failed:', error);
      toast.error(SIGN_OUT_FAILED);
    },
  });
  // Runs after the commit that shows /home (a new history entry, even from /home itself).
  useEffect(() => {
    if (leaving && location.pathname === paths.home) resetUserValues(queryClient, null);
  }, [leaving, location, queryClient]);
  return { signOut: () => mutation.mutate(), isPending: mutation.isPending || leaving };
}
