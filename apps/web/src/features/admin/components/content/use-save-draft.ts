import type { FunctionInput, FunctionName } from '@storefront/domain/contracts/index.ts';
import { errorSentence } from '../../../../lib/error-message.ts';
import { toast } from '../../../../lib/toast.ts';
import { useSaveContent, type SaveName } from '../../api/content-pages.ts';

/**
 * An editor's save: on success the draft follows the server again (`reset`) and a toast says
 * `saved`; on failure a toast says why (`failed` when the error says nothing better).
 */
export function useSaveDraft<N extends SaveName & FunctionName>(name: N, reset: () => void, texts: { saved: string; failed: string }) {
  const save = useSaveContent(name);
  return {
    pending: save.isPending,
    save: (input: FunctionInput<N>) =>
      save.mutate(input, {
        onSuccess: () => {
          reset();
          toast.success(texts.saved);
        },
        onError: (error) => toast.error(errorSentence(error, texts.failed)),
      }),
  };
}
