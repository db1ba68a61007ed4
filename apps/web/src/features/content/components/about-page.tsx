import { ContentSections } from './content-sections.tsx';
import './content.css';

export function AboutPage() {
  return (
    <article className="page text-page">
      <h1>About</h1>
      <ContentSections slug="about" />
    </article>
  );
}
