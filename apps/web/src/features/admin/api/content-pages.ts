import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { FunctionInput, FunctionName } from '@storefront/domain/contracts/index.ts';
import { functionsClient, getJsonOrNull } from '../../../lib/api-client.ts';
import { consoleKeys, historyKeys, pageKeys, siteKeys } from '../../../lib/query-keys.ts';
import { siteQueryOptions } from '../../../lib/site.ts';

/** A page as `GET /api/pages/:slug` answers it (the content pages cache the same raw answer under the same key). */
export interface EditablePage {
  slug: string;
  title: string;
  body: unknown;
  updatedAt: string;
}

export type EditableSlug = 'home' | 'about' | 'privacy-policy';

export const editablePageQueryOptions = (slug: EditableSlug) =>
  queryOptions({
    queryKey: pageKeys.one(slug),
    queryFn: ({ signal }) => getJsonOrNull<EditablePage>(`/api/pages/${slug}`, { signal }),
  });

export function useEditablePage(slug: EditableSlug) {
  return useQuery(editablePageQueryOptions(slug));
}

/** The whole timeline, oldest first: the same call, key and answer as the History page's. */
export const editableHistoryQueryOptions = () =>
  queryOptions({
    queryKey: historyKeys.all,
    queryFn: async ({ signal }) => (await functionsClient.call('listHistory', { orderBy: [{ field: 'releasedOn', direction: 'asc' }], limit: 100 }, { signal })).entries,
  });

export function useEditableHistory() {
  return useQuery(editableHistoryQueryOptions());
}

export function useContactEmail() {
  return useQuery({ ...siteQueryOptions(), select: (site) => site.contactEmail });
}

export type SaveName = 'saveHomePage' | 'saveTextPage' | 'saveHistory' | 'setContactEmail';

/** A content save; this browser's pages and the activity refetch at once (others hear the live topics). */
export function useSaveContent<N extends SaveName & FunctionName>(name: N) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: FunctionInput<N>) => functionsClient.call(name, input),
    // Awaited, so the editor follows the saved page (not the old one) when its own callbacks run.
    onSettled: () => Promise.all([pageKeys.all, historyKeys.all, siteKeys.all, consoleKeys.activity].map((queryKey) => queryClient.invalidateQueries({ queryKey }))),
  });
}
