import { paths } from '../lib/paths.ts';
import { Link } from '../lib/router.tsx';

/** The "Back to Shop" button of a page with nothing (more) to do here: an empty checkout, a refused or missing page, a placed order. */
export function BackToShop({ secondary = false }: { secondary?: boolean }) {
  return (
    <Link to={paths.shop} className={secondary ? 'button button--secondary' : 'button'}>
      Back to Shop
    </Link>
  );
}
