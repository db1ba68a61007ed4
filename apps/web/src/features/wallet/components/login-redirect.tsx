import { Navigate } from '../../../lib/router.tsx';
import { paths } from '../../../lib/paths.ts';

/** Sends a signed-out visitor to Login, which brings them back to `from` afterwards. */
export function LoginRedirect({ from }: { from: string }) {
  return <Navigate to={paths.login} state={{ from }} replace />;
}
