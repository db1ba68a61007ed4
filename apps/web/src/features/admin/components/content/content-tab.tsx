import { useId, useState } from 'react';
import { ContactEditor } from './contact-editor.tsx';
import { HistoryEditor } from './history-editor.tsx';
import { HomeEditor } from './home-editor.tsx';
import { SectionsEditor } from './sections-editor.tsx';
import './content-editor.css';

// Data, not logic: the same { id, label } shape as release-tabs.tsx's TABS by design (a different list).
const PAGES = [
  { id: 'home', label: 'Home' },
  { id: 'about', label: 'About' },
  { id: 'history', label: 'History' },
  { id: 'contact', label: 'Contact' },
  { id: 'privacy-policy', label: 'Privacy policy' },
] as const;

type PageId = (typeof PAGES)[number]['id'];

/**
 * The label's content pages (issue 18, decision 033): each save replaces the page for every
 * visitor at once (open pages refetch live) and is audited.
 */
export function ContentTab() {
  const [page, setPage] = useState<PageId>('home');
  const selectId = useId();
  return (
    <div className="content-editor">
      <h2 className="console__title">Content</h2>
      <p className="console__hint">Edit the site’s pages. A save shows on every open page right away.</p>
      <div className="content-editor__picker">
        <label htmlFor={selectId}>Page</label>
        {/* A plain select of a small list; checkout's country select has the same shape by design (different data, different field). */}
        <select id={selectId} value={page} onChange={(event) => setPage(event.target.value as PageId)}>
          {PAGES.map((option) => (
            <option key={option.id} value={option.id}>
              {option.label}
            </option>
          ))}
        </select>
      </div>
      {page === 'home' ? <HomeEditor /> : page === 'history' ? <HistoryEditor /> : page === 'contact' ? <ContactEditor /> : <SectionsEditor key={page} slug={page} />}
    </div>
  );
}
