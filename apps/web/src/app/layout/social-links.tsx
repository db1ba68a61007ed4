import type { ReactElement } from 'react';
import links from '../config/links.json';

const icons: Record<string, ReactElement> = {
  instagram: (
    <svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false">
      <rect x="3" y="3" width="18" height="18" rx="5" fill="none" stroke="currentColor" strokeWidth="2" />
      <circle cx="12" cy="12" r="4" fill="none" stroke="currentColor" strokeWidth="2" />
      <circle cx="17.5" cy="6.5" r="1.2" fill="currentColor" />
    </svg>
  ),
  youtube: (
    <svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false">
      <rect x="2" y="5" width="20" height="14" rx="4" fill="none" stroke="currentColor" strokeWidth="2" />
      <path d="M10 9l5 3-5 3z" fill="currentColor" />
    </svg>
  ),
  x: (
    <svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false">
      <path d="M4 4l16 16M20 4L4 20" stroke="currentColor" strokeWidth="2.4" strokeLinecap="round" />
    </svg>
  ),
};

/** The label's social profiles, from config/links.json; each opens in a new tab. */
export function SocialLinks({ className }: { className?: string }) {
  return (
    <ul className={className ? `social-links ${className}` : 'social-links'}>
      {links.social.map((link) => (
        <li key={link.url}>
          <a className="social-links__link" href={link.url} target="_blank" rel="noopener noreferrer" aria-label={link.label} title={link.label}>
            {icons[link.network] ?? <span aria-hidden="true">{link.network.slice(0, 2).toUpperCase()}</span>}
          </a>
        </li>
      ))}
    </ul>
  );
}
