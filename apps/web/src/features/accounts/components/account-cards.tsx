import type { ReactNode } from 'react';
import { errorSentence } from '../../../lib/error-message.ts';
import { paths } from '../../../lib/paths.ts';
import { Link } from '../../../lib/router.tsx';
import { useDownloadMyData } from '../api/account.ts';
import { ACCOUNT_PAGE_TEXTS as T } from '../messages.ts';
import { FormAlert, FormStatus, ProgressButton } from './form-fields.tsx';
import { useMyRoyalties } from '../../../ui/royalties/my-royalties.ts';

/** One titled card of /account. */
export function Card({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  return (
    <section className="account-card" aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {children}
    </section>
  );
}

/** /account's way to the fan's music (issue 39 item 5): the library, and redeeming a download code. */
export function MusicSection() {
  return (
    <Card id="account-music" title="My music">
      <p>
        Downloads of what you bought are in <Link to={paths.library}>My music</Link>. <Link to={paths.redeem}>Redeem a download code</Link>.
      </p>
    </Card>
  );
}

/** The wishlist and the items the fan asked to be told about (decision 076). */
export function WishlistSection() {
  return (
    <Card id="account-wishlist" title="Wishlist and notifications">
      <p>
        What you hearted is on <Link to={paths.wishlist}>My wishlist</Link>. Items you asked to be told about are on <Link to={paths.waitlist}>My waitlists</Link>.
      </p>
    </Card>
  );
}

/** The data export (JSON of everything the shop keeps about the account). */
export function DataSection() {
  const download = useDownloadMyData();
  return (
    <Card id="account-data" title="Download my data">
      <p>{T.dataNote}</p>
      <FormAlert message={download.isError ? errorSentence(download.error, T.dataFailed) : null} />
      <FormStatus message={download.isSuccess ? T.dataDone : null} />
      <div className="auth-actions">
        <ProgressButton
          type="button"
          className="button button--secondary"
          pending={download.isPending}
          pendingLabel="Preparing…"
          disabled={download.isPending}
          onClick={() => download.mutate()}
        >
          Download my data
        </ProgressButton>
      </div>
    </Card>
  );
}

/** The royalties portal (issue 36 part 6, decision 080): shown only to an account that holds a party. */
export function RoyaltiesSection() {
  const portal = useMyRoyalties(true);
  const parties = portal.data?.parties ?? [];
  if (parties.length === 0) return null;
  return (
    <Card id="account-royalties" title="Royalties">
      <p>
        Statements, sales, recoup and payouts of {parties.map((party) => party.party.name).join(', ')}: <Link to={paths.portal}>My royalties</Link>.
      </p>
    </Card>
  );
}
