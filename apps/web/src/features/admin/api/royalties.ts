import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { FunctionInput, FunctionOutput } from '@storefront/domain/contracts/index.ts';
import { functionsClient } from '../../../lib/api-client.ts';
import { royaltyKeys } from '../../../lib/query-keys.ts';
import { activityQueryOptions } from './admin-activity.ts';

/** The Roster tab's Royalties section (issue 36 parts 2-3, decision 075). */
export type Royalties = FunctionOutput<'listRoyalties'>;

export const royaltiesQueryOptions = () => queryOptions({ queryKey: royaltyKeys.console, queryFn: ({ signal }) => functionsClient.call('listRoyalties', null, { signal }) });

export const useRoyalties = () => useQuery(royaltiesQueryOptions());

function useRoyaltyMutation<Input, Output>(call: (input: Input) => Promise<Output>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: call,
    onSettled: () => {
      void queryClient.invalidateQueries({ queryKey: royaltyKeys.console });
      void queryClient.invalidateQueries({ queryKey: activityQueryOptions().queryKey });
    },
  });
}

export const useSaveRoyaltyParty = () => useRoyaltyMutation((input: FunctionInput<'saveRoyaltyParty'>) => functionsClient.call('saveRoyaltyParty', input));
export const useSetRoyaltySplit = () => useRoyaltyMutation((input: FunctionInput<'setRoyaltySplit'>) => functionsClient.call('setRoyaltySplit', input));
export const useAddRecoupCost = () => useRoyaltyMutation((input: FunctionInput<'addRecoupCost'>) => functionsClient.call('addRecoupCost', input));

/** Statements and payouts (issue 36 parts 4-5, decision 077). */
export type RoyaltyStatement = FunctionOutput<'getRoyaltyStatement'>;
export type StatementRef = FunctionInput<'getRoyaltyStatement'>;

const refKey = (ref: StatementRef) => ('statementId' in ref ? `id:${ref.statementId}` : `${ref.partyId}:${ref.period}`);

export const useRoyaltyStatements = () => useQuery({ queryKey: royaltyKeys.statements, queryFn: ({ signal }) => functionsClient.call('listRoyaltyStatements', null, { signal }) });

export const useRoyaltyStatement = (ref: StatementRef | null) =>
  useQuery({
    queryKey: royaltyKeys.statement(ref ? refKey(ref) : 'none'),
    queryFn: ({ signal }) => functionsClient.call('getRoyaltyStatement', ref!, { signal }),
    enabled: ref !== null,
    retry: false,
  });

export const getRoyaltyStatementCsv = (ref: StatementRef) => functionsClient.call('getRoyaltyStatementCsv', ref);

export const useRoyaltyPayouts = () => useQuery({ queryKey: royaltyKeys.payouts, queryFn: ({ signal }) => functionsClient.call('listRoyaltyPayouts', null, { signal }) });

function useLedgerMutation<Input, Output>(call: (input: Input) => Promise<Output>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: call,
    onSettled: () => {
      // A statement or a payout changes the balances, the statements and the payouts alike.
      void queryClient.invalidateQueries({ queryKey: ['royalties'] });
      void queryClient.invalidateQueries({ queryKey: activityQueryOptions().queryKey });
    },
  });
}

export const useIssueRoyaltyStatement = () => useLedgerMutation((input: FunctionInput<'issueRoyaltyStatement'>) => functionsClient.call('issueRoyaltyStatement', input));
export const useSetRoyaltyPayoutAccount = () => useLedgerMutation((input: FunctionInput<'setRoyaltyPayoutAccount'>) => functionsClient.call('setRoyaltyPayoutAccount', input));
export const useRunRoyaltyPayouts = () => useLedgerMutation((input: FunctionInput<'runRoyaltyPayouts'>) => functionsClient.call('runRoyaltyPayouts', input));

/** The parties' portal invitations (issue 36 part 6, decision 080). */
export type RoyaltyInvitation = FunctionOutput<'listRoyaltyInvitations'>['invitations'][number];

export const useRoyaltyInvitations = () =>
  useQuery({ queryKey: royaltyKeys.invitations, queryFn: ({ signal }) => functionsClient.call('listRoyaltyInvitations', null, { signal }) });

export const useInviteRoyaltyParty = () => useLedgerMutation((input: FunctionInput<'inviteRoyaltyParty'>) => functionsClient.call('inviteRoyaltyParty', input));
export const useRevokeRoyaltyInvitation = () => useLedgerMutation((input: FunctionInput<'revokeRoyaltyInvitation'>) => functionsClient.call('revokeRoyaltyInvitation', input));
