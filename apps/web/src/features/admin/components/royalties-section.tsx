import { useId, useState, type FormEvent } from 'react';
import { formatUsd } from '@storefront/domain/money.ts';
import { RECOUP_KINDS, ROYALTY_MESSAGES, ROYALTY_PARTY_KINDS } from '@storefront/domain/royalties.ts';
import { errorSentence } from '../../../lib/error-message.ts';
import { useAllProducts } from '../api/console-products.ts';
import { useConsoleReleases } from '../api/music.ts';
import { useAddRecoupCost, useRoyalties, useSaveRoyaltyParty, useSetRoyaltySplit, type Royalties } from '../api/royalties.ts';
import type { ConsoleArtist } from '../api/roster.ts';
import { LoadState } from './load-state.tsx';
import { StatementsAndPayouts } from './royalty-statements.tsx';

const KIND_NAMES: Record<(typeof ROYALTY_PARTY_KINDS)[number], string> = { artist: 'Artist', producer: 'Producer', label: 'Label', 'other-label': 'Another label' };
const SHARE_ROWS = 4;

/** "12.5" (a percentage, up to two decimals) as basis points; null when it is not one. */
export function basisPoints(text: string): number | null {
  const match = /^(\d{1,3})(?:\.(\d{1,2}))?$/.exec(text.trim());
  if (!match) return null;
  const bp = Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0'));
  return bp <= 10_000 ? bp : null;
}

/** "2000" or "2,000.50" dollars as cents; null when it is not an amount. */
export function dollarsToCents(text: string): number | null {
  const match = /^(\d{1,9})(?:\.(\d{1,2}))?$/.exec(text.trim().replace(/[$,]/g, ''));
  return match ? Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0')) : null;
}

const percent = (bp: number) => `${(bp / 100).toFixed(bp % 100 === 0 ? 0 : 2)}%`;

/**
 * The Roster tab's Royalties section (issue 36 parts 2-3, decisions 070 and 075): the parties a
 * sale is shared with, a split per release, product or artist (from a day on; the past keeps its
 * rule), recoupable costs per release, and each party's balance from the ledger.
 */
export function RoyaltiesSection({ artists }: { artists: ConsoleArtist[] }) {
  const royalties = useRoyalties();
  const [announcement, setAnnouncement] = useState('');
  if (royalties.isPending || royalties.isError) return <LoadState query={royalties} label="Loading the royalties…" lines={3} failed="Could not load the royalties." />;
  const data = royalties.data;
  const partyName = (id: number) => data.parties.find((party) => party.id === id)?.name ?? `Party ${id}`;
  return (
    <section aria-labelledby="royalties-title" className="console-royalties">
      <h3 id="royalties-title">Royalties</h3>
      <p className="console__hint">Each line’s net sales (after discounts and returns, without tax, shipping or card fee) are shared by the split in force when it was paid.</p>
      <p role="status" className="visually-hidden">
        {announcement}
      </p>
      <Balances data={data} partyName={partyName} />
      <NewParty artists={artists} onDone={setAnnouncement} />
      <SplitForm data={data} artists={artists} onDone={setAnnouncement} />
      <RecoupForm data={data} onDone={setAnnouncement} />
      <StatementsAndPayouts data={data} onDone={setAnnouncement} />
      <h4>Splits</h4>
      {data.rules.length === 0 ? <p>No splits yet: the label takes every sale.</p> : null}
      <ul aria-label="Splits">
        {data.rules.map((rule) => (
          <li key={rule.id} data-testid="royalty-split">
            {rule.subjectKind === 'artist' ? `${rule.subjectName} (roster default)` : rule.subjectName} from {rule.effectiveFrom}:{' '}
            {rule.shares.map((share) => `${partyName(share.partyId)} ${percent(share.shareBp)}`).join(', ')}
            {rule.reserveBp > 0 ? ` · reserve ${percent(rule.reserveBp)} for ${rule.reserveDays} days` : ''}
          </li>
        ))}
      </ul>
      <h4>Recoupable costs</h4>
      <ul aria-label="Recoupable costs">
        {data.costs.map((cost) => (
          <li key={cost.id} data-testid="royalty-cost">
            {cost.kind} for release {cost.releaseId}, from {partyName(cost.partyId)}: {formatUsd(cost.amountCents)}, recouped {formatUsd(cost.recoupedCents)}
            {cost.note ? ` (${cost.note})` : ''}
          </li>
        ))}
      </ul>
    </section>
  );
}

function Balances({ data, partyName }: { data: Royalties; partyName: (id: number) => string }) {
  return (
    <div className="console-royalties__scroll">
      <table className="console-royalties__balances">
        <caption>Balances</caption>
        <thead>
          <tr>
            <th scope="col">Party</th>
            <th scope="col">Earned</th>
            <th scope="col">Recouped</th>
            <th scope="col">Reserve held</th>
            <th scope="col">Balance</th>
          </tr>
        </thead>
        <tbody>
          {data.parties.map((party) => {
            const balance = data.balances.find((row) => row.partyId === party.id) ?? { earnedCents: 0, recoupedCents: 0, reserveHeldCents: 0, balanceCents: 0 };
            return (
              <tr key={party.id} data-testid="royalty-balance">
                <th scope="row">
                  {partyName(party.id)} <span className="console__hint">({KIND_NAMES[party.kind]})</span>
                </th>
                <td>{formatUsd(balance.earnedCents)}</td>
                <td>{formatUsd(balance.recoupedCents)}</td>
                <td>{formatUsd(balance.reserveHeldCents)}</td>
                <td>{formatUsd(balance.balanceCents)}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

function NewParty({ artists, onDone }: { artists: ConsoleArtist[]; onDone: (text: string) => void }) {
  const save = useSaveRoyaltyParty();
  const id = useId();
  const [kind, setKind] = useState<(typeof ROYALTY_PARTY_KINDS)[number]>('artist');
  const [name, setName] = useState('');
  const [artistId, setArtistId] = useState('');
  const [problem, setProblem] = useState('');
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const artist = artists.find((entry) => String(entry.id) === artistId);
    const partyName = kind === 'artist' ? (artist?.name ?? '') : name.trim();
    if (kind === 'artist' && !artist) return setProblem(ROYALTY_MESSAGES.artistNeeded);
    if (!partyName) return setProblem('A party needs a name.');
    save.mutate(
      { kind, name: partyName, ...(artist ? { artistId: artist.id } : {}) },
      {
        onSuccess: () => {
          setName('');
          setProblem('');
          onDone(`${partyName} added as a party.`);
        },
        onError: (error) => setProblem(errorSentence(error, 'Could not add the party.')),
      },
    );
  };
  return (
    <form className="console-roster__form" onSubmit={submit} noValidate aria-label="New party">
      <label htmlFor={`${id}-kind`}>New party</label>
      <select id={`${id}-kind`} className="field-control" value={kind} onChange={(event) => setKind(event.target.value as typeof kind)}>
        {ROYALTY_PARTY_KINDS.map((value) => (
          <option key={value} value={value}>
            {KIND_NAMES[value]}
          </option>
        ))}
      </select>
      {kind === 'artist' ? (
        <select aria-label="Roster artist" className="field-control" value={artistId} onChange={(event) => setArtistId(event.target.value)}>
          <option value="">Choose an artist…</option>
          {artists.map((artist) => (
            <option key={artist.id} value={artist.id}>
              {artist.name}
            </option>
          ))}
        </select>
      ) : (
        <input aria-label="Party name" className="field-control" value={name} maxLength={120} onChange={(event) => setName(event.target.value)} autoComplete="off" />
      )}
      <button type="submit" className="button" disabled={save.isPending}>
        Add party
      </button>
      <div role="alert">{problem}</div>
    </form>
  );
}

function SplitForm({ data, artists, onDone }: { data: Royalties; artists: ConsoleArtist[]; onDone: (text: string) => void }) {
  const setSplit = useSetRoyaltySplit();
  const releases = useConsoleReleases();
  const products = useAllProducts();
  const id = useId();
  const [subject, setSubject] = useState('');
  const [from, setFrom] = useState('');
  const [rows, setRows] = useState(() => Array.from({ length: SHARE_ROWS }, () => ({ partyId: '', share: '' })));
  const [reserve, setReserve] = useState('');
  const [days, setDays] = useState('');
  const [problem, setProblem] = useState('');
  const subjects = [
    ...(releases.data?.releases ?? []).map((release) => ({ value: `release:${release.id}`, label: `Release: ${release.title}` })),
    ...(products.data?.products ?? []).map((product) => ({ value: `product:${product.id}`, label: `Product: ${product.name}` })),
    ...artists.map((artist) => ({ value: `artist:${artist.id}`, label: `Roster default: ${artist.name}` })),
  ];
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const [kind, value] = subject.split(/:(.*)/s);
    if (!kind || !value) return setProblem('Choose what the split is for.');
    const shares = rows.filter((row) => row.partyId && row.share.trim());
    const parsed = shares.map((row) => ({ partyId: Number(row.partyId), shareBp: basisPoints(row.share) }));
    if (parsed.length === 0 || parsed.some((share) => share.shareBp === null || share.shareBp === 0)) return setProblem('Each share is a percentage, such as 50 or 12.5.');
    if (parsed.reduce((sum, share) => sum + share.shareBp!, 0) !== 10_000) return setProblem(ROYALTY_MESSAGES.sharesSum);
    const reserveBp = reserve.trim() ? basisPoints(reserve) : 0;
    if (reserveBp === null) return setProblem('The reserve is a percentage, such as 10.');
    const target = kind === 'product' ? { kind: 'product' as const, id: value } : { kind: kind as 'release' | 'artist', id: Number(value) };
    setSplit.mutate(
      {
        subject: target,
        effectiveFrom: from || null,
        shares: parsed.map((share) => ({ partyId: share.partyId, shareBp: share.shareBp! })),
        reserveBp,
        reserveDays: Number(days || 0),
      },
      {
        onSuccess: (saved) => {
          setProblem('');
          onDone(`Split saved, from ${saved.effectiveFrom}.`);
        },
        onError: (error) => setProblem(errorSentence(error, 'Could not save the split.')),
      },
    );
  };
  return (
    <form className="console-roster__form" onSubmit={submit} noValidate aria-label="Set a split">
      <h4>Set a split</h4>
      <label htmlFor={`${id}-subject`}>Split for</label>
      <select id={`${id}-subject`} className="field-control" value={subject} onChange={(event) => setSubject(event.target.value)}>
        <option value="">Choose a release, product or artist…</option>
        {subjects.map((entry) => (
          <option key={entry.value} value={entry.value}>
            {entry.label}
          </option>
        ))}
      </select>
      <label htmlFor={`${id}-from`}>From (empty: today)</label>
      <input id={`${id}-from`} type="date" className="field-control" value={from} onChange={(event) => setFrom(event.target.value)} />
      {rows.map((row, index) => (
        <div key={index} className="console-royalties__share">
          <select
            aria-label={`Party ${index + 1}`}
            className="field-control"
            value={row.partyId}
            onChange={(event) => setRows(rows.map((entry, at) => (at === index ? { ...entry, partyId: event.target.value } : entry)))}
          >
            <option value="">—</option>
            {data.parties.map((party) => (
              <option key={party.id} value={party.id}>
                {party.name}
              </option>
            ))}
          </select>
          <input
            aria-label={`Share ${index + 1} (%)`}
            inputMode="decimal"
            className="field-control"
            value={row.share}
            onChange={(event) => setRows(rows.map((entry, at) => (at === index ? { ...entry, share: event.target.value } : entry)))}
          />
        </div>
      ))}
      <label htmlFor={`${id}-reserve`}>Reserve for returns (%)</label>
      <input id={`${id}-reserve`} inputMode="decimal" className="field-control" value={reserve} onChange={(event) => setReserve(event.target.value)} />
      <label htmlFor={`${id}-days`}>Held for (days)</label>
      <input id={`${id}-days`} inputMode="numeric" className="field-control" value={days} onChange={(event) => setDays(event.target.value.replace(/\D/g, ''))} />
      <button type="submit" className="button" disabled={setSplit.isPending}>
        Save split
      </button>
      <div role="alert">{problem}</div>
    </form>
  );
}

function RecoupForm({ data, onDone }: { data: Royalties; onDone: (text: string) => void }) {
  const add = useAddRecoupCost();
  const releases = useConsoleReleases();
  const id = useId();
  const [releaseId, setReleaseId] = useState('');
  const [partyId, setPartyId] = useState('');
  const [kind, setKind] = useState<(typeof RECOUP_KINDS)[number]>('advance');
  const [amount, setAmount] = useState('');
  const [note, setNote] = useState('');
  const [problem, setProblem] = useState('');
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const cents = dollarsToCents(amount);
    if (!releaseId || !partyId) return setProblem('Choose the release and the party it is recouped from.');
    if (!cents) return setProblem('The amount is in dollars, such as 2000 or 2000.50.');
    add.mutate(
      { releaseId: Number(releaseId), partyId: Number(partyId), kind, amountCents: cents, note },
      {
        onSuccess: () => {
          setAmount('');
          setNote('');
          setProblem('');
          onDone(`${formatUsd(cents)} to recoup added.`);
        },
        onError: (error) => setProblem(errorSentence(error, 'Could not add the cost.')),
      },
    );
  };
  return (
    <form className="console-roster__form" onSubmit={submit} noValidate aria-label="Add a recoupable cost">
      <h4>Add a recoupable cost</h4>
      <select aria-label="Release" className="field-control" value={releaseId} onChange={(event) => setReleaseId(event.target.value)}>
        <option value="">Choose a release…</option>
        {(releases.data?.releases ?? []).map((release) => (
          <option key={release.id} value={release.id}>
            {release.title}
          </option>
        ))}
      </select>
      <select aria-label="Recouped from" className="field-control" value={partyId} onChange={(event) => setPartyId(event.target.value)}>
        <option value="">Recouped from…</option>
        {data.parties.map((party) => (
          <option key={party.id} value={party.id}>
            {party.name}
          </option>
        ))}
      </select>
      <select aria-label="Kind of cost" className="field-control" value={kind} onChange={(event) => setKind(event.target.value as typeof kind)}>
        {RECOUP_KINDS.map((value) => (
          <option key={value} value={value}>
            {value}
          </option>
        ))}
      </select>
      <label htmlFor={`${id}-amount`}>Amount ($)</label>
      <input id={`${id}-amount`} inputMode="decimal" className="field-control" value={amount} onChange={(event) => setAmount(event.target.value)} />
      <label htmlFor={`${id}-note`}>Note</label>
      <input id={`${id}-note`} className="field-control" value={note} maxLength={200} onChange={(event) => setNote(event.target.value)} />
      <button type="submit" className="button" disabled={add.isPending}>
        Add cost
      </button>
      <div role="alert">{problem}</div>
    </form>
  );
}
