import { Link } from '../../../lib/router.tsx';

interface ComingSoonProps {
  title: string;
  message: string;
  action: { to: string; label: string };
}

/**
 * What a content page shows while the label has not written it yet (a new shop): a
 * calm note and somewhere to go, never an error. Failures keep their ErrorState.
 */
export function ComingSoon({ title, message, action }: ComingSoonProps) {
  return (
    <div className="coming-soon">
      <svg className="coming-soon__record" viewBox="0 0 64 64" width="64" height="64" aria-hidden="true" focusable="false">
        <circle cx="32" cy="32" r="30" fill="currentColor" opacity="0.18" />
        <circle cx="32" cy="32" r="22" fill="none" stroke="currentColor" strokeWidth="1.5" opacity="0.5" />
        <circle cx="32" cy="32" r="15" fill="none" stroke="currentColor" strokeWidth="1.5" opacity="0.5" />
        <circle cx="32" cy="32" r="8" fill="currentColor" />
        <circle cx="32" cy="32" r="2" fill="var(--surface-1)" />
      </svg>
      <h2 className="coming-soon__title">{title}</h2>
      <p className="coming-soon__message">{message}</p>
      <Link to={action.to} className="button">
        {action.label}
      </Link>
    </div>
  );
}
