import { useId, useMemo, type FormEvent } from 'react';
import { moved } from '../../../../ui/move-buttons.tsx';
import { useEditablePage } from '../../api/content-pages.ts';
import { LoadState } from '../load-state.tsx';
import { RowActions } from './row-actions.tsx';
import { SaveBar } from './save-bar.tsx';
import { useDraft } from './use-draft.ts';
import { useSaveDraft } from './use-save-draft.ts';

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
  const { save, pending } = useSaveDraft('saveTextPage', reset, { saved: `${TITLES[slug]} is saved.`, failed: `Could not save ${TITLES[slug]}.` });
  const baseId = useId();

  if (page.isPending || page.isError || draft === undefined) return <LoadState query={page} label="Loading the page…" lines={4} failed="Could not load the page." />;

  const update = (index: number, change: Partial<SectionDraft>) => setDraft((current) => current.map((section, i) => (i === index ? { ...section, ...change } : section)));

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const sections = draft.map((section) => ({ heading: section.heading.trim(), paragraphs: toParagraphs(section.text) })).filter((s) => s.heading || s.paragraphs.length);
    save({ slug, sections });
  };

  return (
    <form className="content-editor__form" onSubmit={submit} aria-label={`Edit ${TITLES[slug]}`}>
      <p className="console__hint">Separate paragraphs with an empty line.</p>
      <ol className="content-editor__list">
        {draft.map((section, index) => (
          <li key={index} className="content-editor__item">
            <fieldset className="field-group">
              <legend>Section {index + 1}</legend>
              <label htmlFor={`${baseId}-heading-${index}`}>Heading</label>
              <input id={`${baseId}-heading-${index}`} maxLength={200} value={section.heading} onChange={(event) => update(index, { heading: event.target.value })} />
              <label htmlFor={`${baseId}-text-${index}`}>Text</label>
              <textarea id={`${baseId}-text-${index}`} rows={8} value={section.text} onChange={(event) => update(index, { text: event.target.value })} />
              <RowActions
                name={`section ${index + 1}`}
                index={index}
                count={draft.length}
                onMove={(by) => setDraft((current) => moved(current, index, by))}
                onRemove={() => setDraft((current) => current.filter((_, i) => i !== index))}
              />
            </fieldset>
          </li>
        ))}
      </ol>
      <button type="button" className="button button--secondary" onClick={() => setDraft((current) => [...current, { heading: '', text: '' }])}>
        Add section
      </button>
      <SaveBar label={`Save ${TITLES[slug]}`} pending={pending} changedElsewhere={changedElsewhere} />
    </form>
  );
}
