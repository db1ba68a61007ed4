import { useId, type FormEvent } from 'react';
import { errorSentence } from '../../../../lib/error-message.ts';
import { toast } from '../../../../lib/toast.ts';
import { LoadingRegion, SkeletonText } from '../../../../ui/skeleton.tsx';
import { useContactEmail, useSaveContent } from '../../api/content-pages.ts';
import { SaveBar } from './save-bar.tsx';
import { useDraft } from './use-draft.ts';

/** The Contact page's email (spec section 2: "Tells visitors to email an info address"). */
export function ContactEditor() {
  const email = useContactEmail();
  const { draft, setDraft, changedElsewhere, reset } = useDraft(email.data, email.data);
  const save = useSaveContent('setContactEmail');
  const inputId = useId();

  if (email.isPending)
    return (
      <LoadingRegion label="Loading the contact email…">
        <SkeletonText lines={1} />
      </LoadingRegion>
    );
  if (email.isError || draft === undefined) return <p role="alert">{errorSentence(email.error, 'Could not load the contact email.')}</p>;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate(
      { email: draft },
      {
        onSuccess: () => {
          reset();
          toast.success('The contact email is saved.');
        },
        onError: (error) => toast.error(errorSentence(error, 'Could not save the contact email.')),
      },
    );
  };

  return (
    <form className="content-editor__form" onSubmit={submit}>
      <label htmlFor={inputId}>Contact email</label>
      <input id={inputId} type="email" required maxLength={254} value={draft} onChange={(event) => setDraft(() => event.target.value)} />
      <SaveBar label="Save contact email" pending={save.isPending} changedElsewhere={changedElsewhere} />
    </form>
  );
}
