import { errorSentence } from '../../../lib/error-message.ts';
import { LoadingRegion, SkeletonText } from '../../../ui/skeleton.tsx';

/**
 * What a console tab or content editor shows before its data is there: placeholder lines
 * while the query loads, else why it failed (`failed` when the error says nothing better).
 */
export function LoadState({ query, label, lines, failed }: { query: { isPending: boolean; error: unknown }; label: string; lines: number; failed: string }) {
  return query.isPending ? (
    <LoadingRegion label={label}>
      <SkeletonText lines={lines} />
    </LoadingRegion>
  ) : (
    <p role="alert">{errorSentence(query.error, failed)}</p>
  );
}
