import { Navigate } from 'react-router';
import { paths } from '../../../lib/paths.ts';

/** Sends a signed-out visitor to Login, which brings them back to `from` afterwards. */
export function LoginRedirect({ from }: { from: string }) {
  return <Navigate to={paths.login} state={{ from }} replace />;
}
