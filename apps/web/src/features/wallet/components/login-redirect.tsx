import { Navigate } from 'react-router';

/** Sends a signed-out visitor to Login, which brings them back to `from` afterwards. */
export function LoginRedirect({ from }: { from: string }) {
  return <Navigate to="/login" state={{ from }} replace />;
}
