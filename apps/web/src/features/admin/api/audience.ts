import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { AudienceImportReport } from '@storefront/domain/audience.ts';
import type { FunctionOutput } from '@storefront/domain/contracts/index.ts';
import { functionsClient, HttpError } from '../../../lib/api-client.ts';
import { audienceKeys } from '../../../lib/query-keys.ts';

export type Audience = FunctionOutput<'getAudience'>;

/** The Audience tab's figures (issue 37 part 6): followers, consenting fans, unsubscribes, weeks. */
export function useAudience() {
  return useQuery({ queryKey: audienceKeys.all, queryFn: ({ signal }) => functionsClient.call('getAudience', null, { signal }), staleTime: 0 });
}

/** The consenting fans as CSV: a same-origin download the session cookie authorises. */
export const AUDIENCE_CSV_URL = '/api/admin/audience.csv';

/** Sends a CSV file as it is (streamed by the browser, read by the server as it arrives); its report. */
export function useImportAudience() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (file: File): Promise<AudienceImportReport> => {
      const response = await fetch('/api/admin/audience/import', {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'content-type': 'text/csv', accept: 'application/json' },
        body: file,
      });
      const body = (await response.json().catch(() => null)) as { data?: AudienceImportReport; error?: { message?: string } } | null;
      if (!response.ok || !body?.data) throw new HttpError(response.status, body?.error?.message ?? `The import failed (${response.status}).`);
      return body.data;
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: audienceKeys.all }),
  });
}

/** The cart reminder's setting (issue 37 part 7): null hours, off. */
export function useAudienceSettings() {
  return useQuery({ queryKey: audienceKeys.settings, queryFn: ({ signal }) => functionsClient.call('getAudienceSettings', null, { signal }), staleTime: 0 });
}

export function useSaveAudienceSettings() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (cartReminderHours: number | null) => functionsClient.call('saveAudienceSettings', { cartReminderHours }),
    onSuccess: (saved) => queryClient.setQueryData(audienceKeys.settings, saved),
  });
}
