import { Navigate, useLocation } from '../../../lib/router.tsx';
import { useSession } from '../../../lib/session.ts';
import { Spinner } from '../../../ui/spinner.tsx';
import { RELEASE_PAGE_TEXTS } from '../messages.ts';
import { NeedsAttentionList } from './needs-attention-list.tsx';
import { ReleaseTabs, useConsoleTitle } from './release-tabs.tsx';
import { usePageTitle } from '../../../lib/page-title.ts';
import './release-page.css';
import { paths } from '../../../lib/paths.ts';
import { BackToShop } from '../../../ui/back-to-shop.tsx';

/**
 * The admin page (spec sections 2 and 6): sends a visitor known to be signed out to log
 * in; tells signed-in non-admins it is not for them (the server refuses them anyway).
 */
export function ReleasePage() {
  const session = useSession();
  const { pathname } = useLocation();
  usePageTitle(useConsoleTitle());
  // Back to the tab (or order) asked for once signed in: each has its own address (issue 29 item 6).
  if (session.isSignedIn === false) return <Navigate to={paths.login} state={{ from: pathname }} replace />;
  return (
    <section className="page release-page">
      <h1>Release</h1>
      {session.isLoading ? (
        <div className="release-page__loading">
          <Spinner label="Checking your account…" />
        </div>
      ) : session.user?.isAdmin ? (
        <>
          <NeedsAttentionList />
          <ReleaseTabs />
        </>
      ) : (
        <div className="release-page__refused">
          <p>{RELEASE_PAGE_TEXTS.notAdmin}</p>
          <BackToShop />
        </div>
      )}
    </section>
  );
}
