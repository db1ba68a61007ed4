import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { FunctionInput, FunctionOutput } from '@storefront/domain/contracts/index.ts';
import { functionsClient } from '../../../lib/api-client.ts';
import { announcementKeys } from '../../../lib/query-keys.ts';

/** The console's announcements (issue 37 part 3, decision 079). */
export type ConsoleAnnouncement = FunctionOutput<'listAnnouncements'>['announcements'][number];
export type AnnouncementReport = FunctionOutput<'getAnnouncement'>;

const inFlight = (status: string | undefined) => status === 'sending';

export const useAnnouncements = () =>
  useQuery({
    queryKey: announcementKeys.list,
    queryFn: async ({ signal }) => (await functionsClient.call('listAnnouncements', null, { signal })).announcements,
    // Progress: asked again every second while one is sending.
    refetchInterval: (query) => (query.state.data?.some((row) => inFlight(row.status)) ? 1000 : false),
  });

export const useAnnouncement = (id: number) =>
  useQuery({
    queryKey: announcementKeys.one(id),
    queryFn: ({ signal }) => functionsClient.call('getAnnouncement', { id }, { signal }),
    refetchInterval: (query) => (inFlight(query.state.data?.status) ? 1000 : false),
  });

export const useAnnouncementPreview = (id: number, enabled: boolean) =>
  useQuery({ queryKey: announcementKeys.preview(id), queryFn: ({ signal }) => functionsClient.call('previewAnnouncement', { id }, { signal }), enabled, staleTime: 0 });

function useAnnouncementMutation<Input, Output>(call: (input: Input) => Promise<Output>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: call,
    onSettled: () => void queryClient.invalidateQueries({ queryKey: announcementKeys.all }),
  });
}

export const useSaveAnnouncement = () => useAnnouncementMutation((input: FunctionInput<'saveAnnouncement'>) => functionsClient.call('saveAnnouncement', input));
export const useSendAnnouncementTest = () => useAnnouncementMutation((id: number) => functionsClient.call('sendAnnouncementTest', { id }));
export const useSendAnnouncement = () => useAnnouncementMutation((id: number) => functionsClient.call('sendAnnouncement', { id }));
export const usePauseAnnouncement = () => useAnnouncementMutation((id: number) => functionsClient.call('pauseAnnouncement', { id }));
export const useResumeAnnouncement = () => useAnnouncementMutation((id: number) => functionsClient.call('resumeAnnouncement', { id }));
export const useCancelAnnouncement = () => useAnnouncementMutation((id: number) => functionsClient.call('cancelAnnouncement', { id }));

export const useAnnouncementAutomations = () =>
  useQuery({ queryKey: announcementKeys.automations, queryFn: async ({ signal }) => (await functionsClient.call('listAnnouncementAutomations', null, { signal })).automations });

export const useSetAnnouncementAutomation = () =>
  useAnnouncementMutation((input: FunctionInput<'setAnnouncementAutomation'>) => functionsClient.call('setAnnouncementAutomation', input));
