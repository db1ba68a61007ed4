import { useState } from 'react';

/**
 * An editor's working copy of server data. It follows the server (another admin's save
 * arrives live) until the admin changes something; then it stays, and `changedElsewhere`
 * says the page changed under the draft, so a save knowingly replaces it.
 */
export function useDraft<T>(server: T | undefined, version: string | undefined) {
  const [edit, setEdit] = useState<{ value: T; baseVersion: string | undefined } | null>(null);

  return {
    draft: edit ? edit.value : server,
    setDraft: (update: (current: T) => T) =>
      setEdit((current) => {
        if (current) return { ...current, value: update(current.value) };
        return server === undefined ? null : { value: update(server), baseVersion: version };
      }),
    dirty: edit !== null,
    changedElsewhere: edit !== null && edit.baseVersion !== version,
    /** After a save: follow the server again. */
    reset: () => setEdit(null),
  };
}
