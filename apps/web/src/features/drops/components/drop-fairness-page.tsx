import { useEffect, useId, useState, type FormEvent } from 'react';
import { entryListHash, fairOrder, positionOf, sha256Hex } from '@storefront/domain/drops.ts';
import { FunctionsError } from '@storefront/sdk/callable.ts';
import { errorSentence } from '../../../lib/error-message.ts';
import { usePageTitle } from '../../../lib/page-title.ts';
import { paths } from '../../../lib/paths.ts';
import { Link, useParams } from '../../../lib/router.tsx';
import { useSession } from '../../../lib/session.ts';
import { BackLink, DetailNotFound } from '../../../ui/detail-page.tsx';
import { LoadingRegion, SkeletonText } from '../../../ui/skeleton.tsx';
import { useDropFairness, useDropPage, useMyDropState, type DropFairness } from '../api/drops.ts';
import './drops.css';

/** What the browser recomputed from the public data alone. */
interface Recomputed {
  commitmentMatches: boolean;
  listHashMatches: boolean;
  orderMatches: boolean;
  order: number[];
}

async function recompute(fairness: DropFairness): Promise<Recomputed | null> {
  if (!fairness.seed || !fairness.entryListHash) return null;
  const [commitment, listHash, order] = await Promise.all([sha256Hex(fairness.seed), entryListHash(fairness.preQueue), fairOrder(fairness.seed, fairness.preQueue)]);
  return {
    commitmentMatches: commitment === fairness.seedHash,
    listHashMatches: listHash === fairness.entryListHash,
    orderMatches: order.length === fairness.order.length && order.every((n, i) => n === fairness.order[i]),
    order,
  };
}

const verdict = (ok: boolean) => (ok ? 'Matches' : 'Does not match');

/** Entry numbers shown in the list at first; the rest on request (a big drop has many). */
const SHOWN_AT_FIRST = 200;

/**
 * The public fairness page, /drops/:slug/fairness (issue 35 item 2, decision 069): the
 * commitment, the entry list's hash, the revealed seed and the order, each recomputed here in
 * the browser with Web Crypto by the same rules as the server (packages/domain drops.ts); and a
 * box that recomputes any entry's position.
 */
export function DropFairnessPage() {
  const { slug = '' } = useParams();
  const drop = useDropPage(slug);
  const fairness = useDropFairness(slug);
  usePageTitle(drop.data ? `Fairness of ${drop.data.name}` : fairness.isError ? 'Drop not found' : null);
  const [checked, setChecked] = useState<Recomputed | null | undefined>(undefined);
  useEffect(() => {
    if (!fairness.data) return;
    let current = true;
    void recompute(fairness.data).then((result) => current && setChecked(result));
    return () => {
      current = false;
    };
  }, [fairness.data]);

  if (fairness.isError && fairness.error instanceof FunctionsError && fairness.error.code === 'not-found')
    return (
      <DetailNotFound page="drop-fairness-page" title="Drop not found" lead="This drop does not exist.">
        <Link to={paths.shop}>Back to the shop</Link>
      </DetailNotFound>
    );

  return (
    <section className="page drop-fairness-page" aria-labelledby="fairness-title">
      <BackLink className="drop-fairness-page__back" to={paths.drop(slug)} label="Back to the drop" />
      <h1 id="fairness-title">{drop.data ? `Fairness of ${drop.data.name}` : 'Fairness of this drop'}</h1>
      <p className="page-lead">
        The shop committed to a secret seed when it scheduled the drop. At the start it published the hash of the pre-queue&apos;s entry list, then revealed the seed. The
        pre-queue&apos;s order is its entry numbers sorted by HMAC-SHA256(seed, entry number); later arrivals follow in join order. This page checks all of it in your browser.
      </p>
      {fairness.isPending ? (
        <LoadingRegion label="Loading the fairness data…">
          <SkeletonText lines={6} />
        </LoadingRegion>
      ) : fairness.isError ? (
        <p role="alert">{errorSentence(fairness.error, 'Could not load the fairness data.')}</p>
      ) : (
        <FairnessData fairness={fairness.data} checked={checked} />
      )}
    </section>
  );
}

function FairnessData({ fairness, checked }: { fairness: DropFairness; checked: Recomputed | null | undefined }) {
  const [showAll, setShowAll] = useState(false);
  const shown = showAll ? fairness.order : fairness.order.slice(0, SHOWN_AT_FIRST);
  return (
    <>
      <dl className="drop-fairness">
        <dt>Commitment (SHA-256 of the seed)</dt>
        <dd>
          <code data-testid="fairness-commitment">{fairness.seedHash}</code>
          {checked ? <span data-testid="fairness-commitment-check"> {verdict(checked.commitmentMatches)}</span> : null}
        </dd>
        <dt>Entry list hash (SHA-256 of the pre-queue&apos;s numbers)</dt>
        <dd>
          {fairness.entryListHash ? <code data-testid="fairness-list-hash">{fairness.entryListHash}</code> : 'Published at the start.'}
          {checked ? <span data-testid="fairness-list-check"> {verdict(checked.listHashMatches)}</span> : null}
        </dd>
        <dt>Seed</dt>
        <dd>{fairness.seed ? <code data-testid="fairness-seed">{fairness.seed}</code> : 'Revealed at the start.'}</dd>
        <dt>Entrants</dt>
        <dd>
          {fairness.entrants} ({fairness.preQueue.length} in the pre-queue)
        </dd>
        <dt>Admissions in the published order</dt>
        <dd data-testid="fairness-in-order">{Math.round(fairness.inOrderShare * 1000) / 10}%</dd>
        {checked ? (
          <>
            <dt>The order recomputed here</dt>
            <dd data-testid="fairness-order-check">{verdict(checked.orderMatches)}</dd>
          </>
        ) : null}
      </dl>
      {fairness.order.length > 0 ? (
        <>
          <h2>The pre-queue in its fair order</h2>
          <p className="drop__hint">
            Position 1 is the first entry number below. Entries with a number above {fairness.preQueue.length} joined after the start: their position is their number.
          </p>
          <ol className="drop-fairness__order" data-testid="fairness-order">
            {shown.map((n) => (
              <li key={n}>{n}</li>
            ))}
          </ol>
          {fairness.order.length > shown.length ? (
            <button type="button" className="button button--secondary" onClick={() => setShowAll(true)}>
              Show all {fairness.order.length} entries
            </button>
          ) : null}
        </>
      ) : null}
      <PositionCheck fairness={fairness} checked={checked} />
      <h2>Check it yourself</h2>
      <p>
        The shop&apos;s source has a script that does the same from this public data alone: <code>node scripts/verify-drop.mjs &lt;shop address&gt; {fairness.slug} [entry]</code>{' '}
        (decision 066). The data is the public function <code>getDropFairness</code> (<code>POST /fn/getDropFairness</code> with{' '}
        <code>{JSON.stringify({ data: { slug: fairness.slug } })}</code>).
      </p>
    </>
  );
}

/** "Check my position": an entry number's position recomputed here, against the published order. */
function PositionCheck({ fairness, checked }: { fairness: DropFairness; checked: Recomputed | null | undefined }) {
  const id = useId();
  const session = useSession();
  const mine = useMyDropState(fairness.dropId, session.isSignedIn === true);
  const [typed, setValue] = useState<string | null>(null);
  const [answer, setAnswer] = useState('');
  const own = mine.data?.entry?.number;
  // The fan's own entry number until they type another.
  const value = typed ?? (own !== undefined ? String(own) : '');

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const n = Number(value);
    if (!Number.isInteger(n) || n < 1 || n > fairness.entrants) {
      setAnswer(`Write an entry number from 1 to ${fairness.entrants}.`);
      return;
    }
    if (!checked) {
      setAnswer('The order is known once the drop has started and the seed is revealed.');
      return;
    }
    const recomputed = positionOf(checked.order, fairness.preQueue.length, n);
    const published = positionOf(fairness.order, fairness.preQueue.length, n);
    const ownPosition = own === n ? mine.data?.entry?.position : undefined;
    const matches = recomputed === published && (ownPosition === undefined || ownPosition === null || ownPosition === recomputed);
    setAnswer(
      `Entry ${n}: position ${recomputed ?? 'unknown'} recomputed here; the shop published position ${published ?? 'unknown'}${ownPosition ? ` and told you ${ownPosition}` : ''}. ${matches ? 'They match.' : 'They do not match.'}`,
    );
  };

  return (
    <form className="drop-fairness__check" onSubmit={submit} aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Check my position</h2>
      <label htmlFor={`${id}-entry`}>Entry number</label>
      <input id={`${id}-entry`} inputMode="numeric" value={value} onChange={(event) => setValue(event.target.value)} autoComplete="off" />
      <button type="submit" className="button">
        Check
      </button>
      <p role="status" data-testid="fairness-position-answer">
        {answer}
      </p>
    </form>
  );
}
