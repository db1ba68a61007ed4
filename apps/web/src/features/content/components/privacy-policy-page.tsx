import { useNavigate } from '../../../lib/router.tsx';
import { ContentSections } from './content-sections.tsx';
import './content.css';
import { paths } from '../../../lib/paths.ts';

export function PrivacyPolicyPage() {
  const navigate = useNavigate();
  return (
    <article className="page text-page">
      <h1>Privacy Policy</h1>
      <ContentSections slug="privacy-policy" />
      <p className="text-page__actions">
        <button type="button" className="button button--secondary" onClick={() => void navigate(paths.login)}>
          Back to Login
        </button>
      </p>
    </article>
  );
}
