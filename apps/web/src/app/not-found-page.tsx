import { Link } from '../lib/router.tsx';
import { paths } from '../lib/paths.ts';

export function NotFoundPage() {
  return (
    <section className="page">
      <h1>Page not found</h1>
      <p>There is nothing at this address. It may have moved, or the link may be mistyped.</p>
      <p>
        <Link className="button" to={paths.home}>
          Go to the home page
        </Link>
      </p>
    </section>
  );
}
