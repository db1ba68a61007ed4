import { Link } from 'react-router';
import { SocialLinks } from './social-links.tsx';
import { useCopyright } from './use-copyright.ts';
import './footer.css';

export function Footer() {
  const copyright = useCopyright();
  return (
    <footer className="site-footer">
      <div className="site-footer__inner">
        <p className="site-footer__copyright">{copyright}</p>
        <nav aria-label="Footer" className="site-footer__nav">
          <Link to="/history">History</Link>
          <Link to="/privacy-policy">Privacy Policy</Link>
        </nav>
        <SocialLinks />
      </div>
    </footer>
  );
}
