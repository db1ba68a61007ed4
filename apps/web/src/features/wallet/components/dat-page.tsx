import { useId } from 'react';
import { Link, useLocation, useParams } from '../../../lib/router.tsx';
import { formatCount } from '@storefront/domain/wallet.ts';
import { useSession } from '../../../lib/session.ts';
import { ErrorState } from '../../../ui/error-state.tsx';
import { ProductImage } from '../../../ui/product-image.tsx';
import { BackLink, DetailLoading, DetailNotFound } from '../../../ui/detail-page.tsx';
import { isDatNotFound, useDat, type DatDetail } from '../api/get-dat.ts';
import { formatCents, formatReleaseDate, WALLET_TEXTS } from '../wallet-format.ts';
import { LoginRedirect } from './login-redirect.tsx';
import './wallet.css';
import { paths } from '../../../lib/paths.ts';
import { DataTable } from '../../../ui/data-table.tsx';

/** One DAT (/wallet/dat/{id}): its artwork, song, artist, creator and the editions the user owns. */
export function DatPage() {
  const { id = '' } = useParams();
  const { pathname } = useLocation();
  const session = useSession();
  if (!session.isLoading && !session.user) return <LoginRedirect from={pathname} />;
  if (!session.user) return <DatLoading />;
  return <DatScreen key={id} id={id} />;
}

function DatScreen({ id }: { id: string }) {
  const dat = useDat(id);
  if (dat.isPending) return <DatLoading />;
  // Also after a live update: a DAT removed while open is gone.
  if (isDatNotFound(dat.error)) return <DatNotFound />;
  if (!dat.data) {
    return (
      <section className="page dat-page">
        <ErrorState headingLevel={1} title={WALLET_TEXTS.datLoadFailed} message={WALLET_TEXTS.tryAgain} onRetry={() => void dat.refetch()} />
        <BackLink className="dat-page__back" to={paths.wallet} label="Back to Wallet" />
      </section>
    );
  }
  return <DatDetails dat={dat.data} />;
}

function DatDetails({ dat }: { dat: DatDetail }) {
  const editionsId = useId();
  const released = formatReleaseDate(dat.releasedAt);
  return (
    <section className="page dat-page">
      <BackLink className="dat-page__back" to={paths.wallet} label="Back to Wallet" />
      <div className="dat-detail">
        <ProductImage url={dat.ArtworkURL} alt={`Cover art of ${dat.SongName}`} sizes="(min-width: 726px) 24rem, 100vw" priority className="dat-detail__image" />
        <div className="dat-detail__info">
          <h1 className="dat-detail__song">{dat.SongName}</h1>
          <p className="dat-detail__artist">{dat.ArtistName}</p>
          <dl className="dat-detail__facts">
            <div>
              <dt>Creator</dt>
              <dd>{dat.creatorUsername}</dd>
            </div>
            {released ? (
              <div>
                <dt>Released</dt>
                <dd>{released}</dd>
              </div>
            ) : null}
          </dl>
          <h2 id={editionsId} className="dat-detail__editions-title">
            Your editions
          </h2>
          {dat.editions.length === 0 ? (
            <p className="wallet-empty">You do not own an edition of this DAT.</p>
          ) : (
            <div className="dat-editions">
              <DataTable
                labelledBy={editionsId}
                rows={dat.editions}
                rowKey={(edition) => edition.edition}
                columns={[
                  { header: 'Edition', rowHeader: true, cell: (edition) => edition.edition },
                  { header: 'Sold', cell: (edition) => formatCount(edition.sold) },
                  { header: 'Royalties', cell: (edition) => formatCents(edition.royaltiesCents) },
                  { header: 'Earnings', cell: (edition) => formatCents(edition.earningsCents) },
                ]}
              />
            </div>
          )}
        </div>
      </div>
    </section>
  );
}

// Alike in shape to product-page.tsx's ProductNotFound and ProductLoading by design: both call ui/detail-page.tsx with their own texts and classes.
function DatNotFound() {
  return (
    <DetailNotFound page="dat-page" title={WALLET_TEXTS.datNotFound} lead="The link may be mistyped, or the DAT was removed.">
      <Link to={paths.wallet} className="button">
        Back to Wallet
      </Link>
    </DetailNotFound>
  );
}

function DatLoading() {
  return <DetailLoading page="dat-page" label="Loading the DAT…" layout="dat-detail" line={{ width: '40%', height: '1.25rem' }} />;
}
