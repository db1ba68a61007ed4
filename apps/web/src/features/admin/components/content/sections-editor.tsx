import { useId, useMemo, type FormEvent } from 'react';
import { errorSentence } from '../../../../lib/error-message.ts';
import { toast } from '../../../../lib/toast.ts';
import { LoadingRegion, SkeletonText } from '../../../../ui/skeleton.tsx';
import { useEditablePage, useSaveContent } from '../../api/content-pages.ts';
import { SaveBar } from './save-bar.tsx';
import { useDraft } from './use-draft.ts';

interface SectionDraft {
  heading: string;
  /** Paragraphs separated by a blank line. */
  text: string;
}

const TITLES = { about: 'About', 'privacy-policy': 'Privacy policy' } as const;

function readSections(body: unknown): SectionDraft[] {
  const sections = (body as { sections?: unknown } | null)?.sections;
  if (!Array.isArray(sections)) return [];
  return sections.map((section: { heading?: unknown; paragraphs?: unknown }) => ({
    heading: typeof section?.heading === 'string' ? section.heading : '',
    text: Array.isArray(section?.paragraphs) ? section.paragraphs.filter((p): p is string => typeof p === 'string').join('\n\n') : '',
  }));
}

const toParagraphs = (text: string) =>
  text
    .split(/\n\s*\n/)
    .map((paragraph) => paragraph.trim())
    .filter(Boolean);

/** About and Privacy policy: headed sections of paragraphs, shown as text (never HTML). */
export function SectionsEditor({ slug }: { slug: 'about' | 'privacy-policy' }) {
  const page = useEditablePage(slug);
  const server = useMemo(() => (page.data === undefined ? undefined : readSections(page.data?.body)), [page.data]);
  const { draft, setDraft, changedElsewhere, reset } = useDraft(server, page.data?.updatedAt);
  const save = useSaveContent('saveTextPage');
  const baseId = useId();

  if (page.isPending)
    return (
      <LoadingRegion label="Loading the page…">
        <SkeletonText lines={4} />
      </LoadingRegion>
    );
  if (page.isError || draft === undefined) return <p role="alert">{errorSentence(page.error, 'Could not load the page.')}</p>;

  const update = (index: number, change: Partial<SectionDraft>) => setDraft((current) => current.map((section, i) => (i === index ? { ...section, ...change } : section)));
  const move = (index: number, by: number) =>
    setDraft((current) => {
      const next = [...current];
      const [item] = next.splice(index, 1);
      next.splice(index + by, 0, item!);
      return next;
    });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const sections = draft.map((section) => ({ heading: section.heading.trim(), paragraphs: toParagraphs(section.text) })).filter((s) => s.heading || s.paragraphs.length);
    save.mutate(
      { slug, sections },
      {
        onSuccess: () => {
          reset();
          toast.success(`${TITLES[slug]} is saved.`);
        },
        onError: (error) => toast.error(errorSentence(error, `Could not save ${TITLES[slug]}.`)),
      },
    );
  };

  return (
    <form className="content-editor__form" onSubmit={submit} aria-label={`Edit ${TITLES[slug]}`}>
      <p className="console__hint">Separate paragraphs with an empty line.</p>
      <ol className="content-editor__list">
        {draft.map((section, index) => (
          <li key={index} className="content-editor__item">
            <fieldset>
              <legend>Section {index + 1}</legend>
              <label htmlFor={`${baseId}-heading-${index}`}>Heading</label>
              <input id={`${baseId}-heading-${index}`} maxLength={200} value={section.heading} onChange={(event) => update(index, { heading: event.target.value })} />
              <label htmlFor={`${baseId}-text-${index}`}>Text</label>
              <textarea id={`${baseId}-text-${index}`} rows={8} value={section.text} onChange={(event) => update(index, { text: event.target.value })} />
              <div className="content-editor__row-actions">
                <button
                  type="button"
                  className="button button--secondary button--small"
                  disabled={index === 0}
                  onClick={() => move(index, -1)}
                  aria-label={`Move section ${index + 1} up`}
                >
                  Move up
                </button>
                <button
                  type="button"
                  className="button button--secondary button--small"
                  disabled={index === draft.length - 1}
                  onClick={() => move(index, 1)}
                  aria-label={`Move section ${index + 1} down`}
                >
                  Move down
                </button>
                <button
                  type="button"
                  className="button button--danger button--small"
                  onClick={() => setDraft((current) => current.filter((_, i) => i !== index))}
                  aria-label={`Remove section ${index + 1}`}
                >
                  Remove
                </button>
              </div>
            </fieldset>
          </li>
        ))}
      </ol>
      <button type="button" className="button button--secondary" onClick={() => setDraft((current) => [...current, { heading: '', text: '' }])}>
        Add section
      </button>
      <SaveBar label={`Save ${TITLES[slug]}`} pending={save.isPending} changedElsewhere={changedElsewhere} />
    </form>
  );
}
