import { useId, type FormEvent } from 'react';
import { useContactEmail } from '../../api/content-pages.ts';
import { LoadState } from '../load-state.tsx';
import { SaveBar } from './save-bar.tsx';
import { useDraft } from './use-draft.ts';
import { useSaveDraft } from './use-save-draft.ts';

/** The Contact page's email (spec section 2: "Tells visitors to email an info address"). */
export function ContactEditor() {
  const email = useContactEmail();
  const { draft, setDraft, changedElsewhere, reset } = useDraft(email.data, email.data);
  const { save, pending } = useSaveDraft('setContactEmail', reset, { saved: 'The contact email is saved.', failed: 'Could not save the contact email.' });
  const inputId = useId();

  if (email.isPending || email.isError || draft === undefined)
    return <LoadState query={email} label="Loading the contact email…" lines={1} failed="Could not load the contact email." />;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    save({ email: draft });
  };

  return (
    <form className="content-editor__form" onSubmit={submit}>
      <label htmlFor={inputId}>Contact email</label>
      <input id={inputId} type="email" required maxLength={254} value={draft} onChange={(event) => setDraft(() => event.target.value)} />
      <SaveBar label="Save contact email" pending={pending} changedElsewhere={changedElsewhere} />
    </form>
  );
}
