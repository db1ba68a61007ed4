import { useId, useState, type FormEvent } from 'react';
import { ROSTER_MESSAGES } from '@storefront/domain/roster.ts';
import { errorSentence } from '../../../lib/error-message.ts';
import { paths } from '../../../lib/paths.ts';
import { Link } from '../../../lib/router.tsx';
import { useAllProducts } from '../api/console-products.ts';
import { useConsoleReleases } from '../api/music.ts';
import { useDeleteArtist, useLinkArtist, useMergeArtist, useRoster, useSaveArtist, type ConsoleArtist } from '../api/roster.ts';
import { LoadState } from './load-state.tsx';
import { RoyaltiesSection } from './royalties-section.tsx';
import './console.css';

/** Links as the form writes them: one a line, "Label https://address". */
function linksText(links: { label: string; url: string }[]): string {
  return links.map((link) => `${link.label} ${link.url}`).join('\n');
}

function parseLinks(text: string): { label: string; url: string }[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => {
      const at = line.lastIndexOf(' ');
      return at < 0 ? { label: line, url: line } : { label: line.slice(0, at).trim(), url: line.slice(at + 1) };
    });
}

/**
 * The console's Roster tab (issue 36, decision 070): add an artist, edit one (a new address keeps
 * the old one redirecting), credit releases and products, merge one artist into another, and
 * remove one nothing names. Above them, the releases no artist is credited on (what the migration
 * could not match, and any release added since).
 */
export function RosterTab() {
  const roster = useRoster();
  const [announcement, setAnnouncement] = useState('');
  if (roster.isPending || roster.isError) return <LoadState query={roster} label="Loading the roster…" lines={4} failed="Could not load the roster." />;
  const { artists, unlinked } = roster.data;
  return (
    <div className="console-roster">
      <h2 className="console__title">Roster</h2>
      <p className="console__hint">The label’s artists, each with a public page. Credit them on releases and products; the shop filters by them.</p>
      <p role="status" className="visually-hidden">
        {announcement}
      </p>
      {unlinked.length > 0 ? (
        <section aria-labelledby="roster-unlinked">
          <h3 id="roster-unlinked">Releases credited to no artist</h3>
          <ul className="console-roster__unlinked">
            {unlinked.map((release) => (
              <li key={release.id}>
                {release.title} <span className="console__hint">(credited as “{release.artist}”)</span>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      <NewArtist onDone={setAnnouncement} />
      <ul className="console-roster__list" aria-label="Artists">
        {artists.map((artist) => (
          <li key={artist.id} className="console-roster__artist" data-testid="roster-artist">
            <ArtistEntry artist={artist} others={artists.filter((other) => other.id !== artist.id)} onDone={setAnnouncement} />
          </li>
        ))}
      </ul>
      <RoyaltiesSection artists={artists} />
    </div>
  );
}

function NewArtist({ onDone }: { onDone: (text: string) => void }) {
  const save = useSaveArtist();
  const [name, setName] = useState('');
  const [problem, setProblem] = useState('');
  const id = useId();
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const trimmed = name.trim();
    if (!trimmed) return setProblem(ROSTER_MESSAGES.name);
    save.mutate(
      { name: trimmed, links: [] },
      {
        onSuccess: (saved) => {
          setName('');
          setProblem('');
          onDone(`${trimmed} added at ${paths.artist(saved.slug)}.`);
        },
        onError: (error) => setProblem(errorSentence(error, 'Could not add the artist.')),
      },
    );
  };
  return (
    <form className="console-roster__add" onSubmit={submit} noValidate>
      <label htmlFor={`${id}-name`}>New artist</label>
      <input id={`${id}-name`} value={name} maxLength={120} onChange={(event) => setName(event.target.value)} autoComplete="off" className="field-control" />
      <button type="submit" className="button" disabled={save.isPending}>
        Add artist
      </button>
      <div role="alert">{problem}</div>
    </form>
  );
}

function ArtistEntry({ artist, others, onDone }: { artist: ConsoleArtist; others: ConsoleArtist[]; onDone: (text: string) => void }) {
  const named = artist.releases.length + artist.tracks.length + artist.products.length;
  return (
    <details>
      <summary>
        <strong>{artist.name}</strong> <span className="console__hint">{paths.artist(artist.slug)}</span>{' '}
        <span className="console__hint">
          {artist.releases.length} {artist.releases.length === 1 ? 'release' : 'releases'}, {artist.products.length} {artist.products.length === 1 ? 'product' : 'products'}
        </span>
      </summary>
      <p>
        <Link to={paths.artist(artist.slug)}>Open {artist.name}’s page</Link>
        {artist.oldSlugs.length > 0 ? <span className="console__hint"> · also reached at {artist.oldSlugs.map((slug) => paths.artist(slug)).join(', ')}</span> : null}
      </p>
      <ArtistForm artist={artist} onDone={onDone} />
      <Credits artist={artist} onDone={onDone} />
      <MergeOrDelete artist={artist} others={others} named={named} onDone={onDone} />
    </details>
  );
}

function ArtistForm({ artist, onDone }: { artist: ConsoleArtist; onDone: (text: string) => void }) {
  const save = useSaveArtist();
  const id = useId();
  const [draft, setDraft] = useState({ name: artist.name, slug: artist.slug, bio: artist.bio, image: artist.image, links: linksText(artist.links) });
  const [problem, setProblem] = useState('');
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    save.mutate(
      { id: artist.id, name: draft.name.trim(), slug: draft.slug.trim(), bio: draft.bio, image: draft.image.trim(), links: parseLinks(draft.links) },
      {
        onSuccess: (saved) => {
          setProblem('');
          onDone(`${draft.name.trim()} saved at ${paths.artist(saved.slug)}.`);
        },
        onError: (error) => setProblem(errorSentence(error, 'Could not save the artist.')),
      },
    );
  };
  const field = (key: 'name' | 'slug' | 'image', label: string) => (
    <p className="form-field">
      <label htmlFor={`${id}-${key}`}>{label}</label>
      <input id={`${id}-${key}`} className="field-control" value={draft[key]} onChange={(event) => setDraft({ ...draft, [key]: event.target.value })} autoComplete="off" />
    </p>
  );
  return (
    <form className="console-roster__form" onSubmit={submit} noValidate aria-label={`Edit ${artist.name}`}>
      {field('name', 'Name')}
      {field('slug', 'Address (/artist/…)')}
      {field('image', 'Image (an uploaded image’s address)')}
      <p className="form-field">
        <label htmlFor={`${id}-bio`}>Bio</label>
        <textarea id={`${id}-bio`} className="field-control" rows={4} value={draft.bio} onChange={(event) => setDraft({ ...draft, bio: event.target.value })} />
      </p>
      <p className="form-field">
        <label htmlFor={`${id}-links`}>Links (one a line: label, then the address)</label>
        <textarea id={`${id}-links`} className="field-control" rows={3} value={draft.links} onChange={(event) => setDraft({ ...draft, links: event.target.value })} />
      </p>
      <button type="submit" className="button" disabled={save.isPending}>
        Save {artist.name}
      </button>
      <div role="alert">{problem}</div>
    </form>
  );
}

function Credits({ artist, onDone }: { artist: ConsoleArtist; onDone: (text: string) => void }) {
  const link = useLinkArtist();
  const releases = useConsoleReleases();
  const products = useAllProducts();
  const id = useId();
  const [release, setRelease] = useState('');
  const [product, setProduct] = useState('');
  const [track, setTrack] = useState('');
  const [problem, setProblem] = useState('');
  const change = (subject: { kind: 'release' | 'track'; id: number } | { kind: 'product'; id: string }, linked: boolean, what: string) =>
    link.mutate(
      { artistId: artist.id, subject, linked },
      {
        onSuccess: () => {
          setProblem('');
          onDone(linked ? `${artist.name} credited on ${what}.` : `${artist.name}’s credit on ${what} taken away.`);
        },
        onError: (error) => setProblem(errorSentence(error, 'Could not change the credit.')),
      },
    );
  const creditedReleases = new Set(artist.releases.map((entry) => entry.id));
  const creditedProducts = new Set(artist.products.map((entry) => entry.id));
  const creditedTracks = new Set(artist.tracks.map((entry) => entry.id));
  // Every track by its release, for the track list and the choice (a feature on someone else's release).
  const tracks = (releases.data?.releases ?? []).flatMap((entry) => entry.tracks.map((item) => ({ id: item.id, name: `${item.title} (${entry.title})` })));
  const trackName = (id: number) => tracks.find((item) => item.id === id)?.name ?? `Track ${id}`;
  return (
    <div className="console-roster__credits">
      <h4>Credited on</h4>
      <ul aria-label={`${artist.name}’s credits`}>
        {artist.releases.map((entry) => (
          <li key={`r${entry.id}`}>
            Release: {entry.title}{' '}
            <button
              type="button"
              className="button button--secondary button--small"
              disabled={link.isPending}
              onClick={() => change({ kind: 'release', id: entry.id }, false, entry.title)}
            >
              Unlink <span className="visually-hidden">{entry.title}</span>
            </button>
          </li>
        ))}
        {artist.tracks.map((entry) => (
          <li key={`t${entry.id}`}>
            Track: {trackName(entry.id)}{' '}
            <button
              type="button"
              className="button button--secondary button--small"
              disabled={link.isPending}
              onClick={() => change({ kind: 'track', id: entry.id }, false, trackName(entry.id))}
            >
              Unlink <span className="visually-hidden">{trackName(entry.id)}</span>
            </button>
          </li>
        ))}
        {artist.products.map((entry) => (
          <li key={`p${entry.id}`}>
            Product: {entry.name}{' '}
            <button
              type="button"
              className="button button--secondary button--small"
              disabled={link.isPending}
              onClick={() => change({ kind: 'product', id: entry.id }, false, entry.name)}
            >
              Unlink <span className="visually-hidden">{entry.name}</span>
            </button>
          </li>
        ))}
      </ul>
      <p className="form-field">
        <label htmlFor={`${id}-release`}>Credit {artist.name} on a release</label>
        <select id={`${id}-release`} className="field-control" value={release} onChange={(event) => setRelease(event.target.value)}>
          <option value="">Choose a release</option>
          {(releases.data?.releases ?? [])
            .filter((entry) => !creditedReleases.has(entry.id))
            .map((entry) => (
              <option key={entry.id} value={entry.id}>
                {entry.title} ({entry.artist})
              </option>
            ))}
        </select>
        <button
          type="button"
          className="button button--small"
          disabled={!release || link.isPending}
          onClick={() => {
            const chosen = releases.data?.releases.find((entry) => entry.id === Number(release));
            if (chosen) change({ kind: 'release', id: chosen.id }, true, chosen.title);
            setRelease('');
          }}
        >
          Link release
        </button>
      </p>
      <p className="form-field">
        <label htmlFor={`${id}-track`}>Credit {artist.name} on a track (a feature)</label>
        <select id={`${id}-track`} className="field-control" value={track} onChange={(event) => setTrack(event.target.value)}>
          <option value="">Choose a track</option>
          {tracks
            .filter((item) => !creditedTracks.has(item.id))
            .map((item) => (
              <option key={item.id} value={item.id}>
                {item.name}
              </option>
            ))}
        </select>
        <button
          type="button"
          className="button button--small"
          disabled={!track || link.isPending}
          onClick={() => {
            const chosen = tracks.find((item) => item.id === Number(track));
            if (chosen) change({ kind: 'track', id: chosen.id }, true, chosen.name);
            setTrack('');
          }}
        >
          Link track
        </button>
      </p>
      <p className="form-field">
        <label htmlFor={`${id}-product`}>Credit {artist.name} on a product</label>
        <select id={`${id}-product`} className="field-control" value={product} onChange={(event) => setProduct(event.target.value)}>
          <option value="">Choose a product</option>
          {(products.data?.products ?? [])
            .filter((entry) => !creditedProducts.has(entry.id))
            .map((entry) => (
              <option key={entry.id} value={entry.id}>
                {entry.name}
              </option>
            ))}
        </select>
        <button
          type="button"
          className="button button--small"
          disabled={!product || link.isPending}
          onClick={() => {
            const chosen = products.data?.products.find((entry) => entry.id === product);
            if (chosen) change({ kind: 'product', id: chosen.id }, true, chosen.name);
            setProduct('');
          }}
        >
          Link product
        </button>
      </p>
      <div role="alert">{problem}</div>
    </div>
  );
}

function MergeOrDelete({ artist, others, named, onDone }: { artist: ConsoleArtist; others: ConsoleArtist[]; named: number; onDone: (text: string) => void }) {
  const merge = useMergeArtist();
  const remove = useDeleteArtist();
  const id = useId();
  const [into, setInto] = useState('');
  const [problem, setProblem] = useState('');
  const target = others.find((other) => other.id === Number(into));
  return (
    <div className="console-roster__merge">
      <p className="form-field">
        <label htmlFor={`${id}-into`}>Merge {artist.name} into</label>
        <select id={`${id}-into`} className="field-control" value={into} onChange={(event) => setInto(event.target.value)}>
          <option value="">Choose an artist</option>
          {others.map((other) => (
            <option key={other.id} value={other.id}>
              {other.name} ({paths.artist(other.slug)})
            </option>
          ))}
        </select>
        <button
          type="button"
          className="button button--danger button--small"
          disabled={!target || merge.isPending}
          onClick={() =>
            target &&
            merge.mutate(
              { from: artist.id, into: target.id },
              { onSuccess: () => onDone(`${artist.name} merged into ${target.name}.`), onError: (error) => setProblem(errorSentence(error, 'Could not merge the artists.')) },
            )
          }
        >
          Merge
        </button>
      </p>
      <button
        type="button"
        className="button button--danger button--small"
        disabled={named > 0 || remove.isPending}
        aria-describedby={named > 0 ? `${id}-why` : undefined}
        onClick={() =>
          remove.mutate(
            { id: artist.id },
            { onSuccess: () => onDone(`${artist.name} removed.`), onError: (error) => setProblem(errorSentence(error, 'Could not remove the artist.')) },
          )
        }
      >
        Remove <span className="visually-hidden">{artist.name}</span>
      </button>
      {named > 0 ? (
        <span id={`${id}-why`} className="console__hint">
          {' '}
          {ROSTER_MESSAGES.inUse}
        </span>
      ) : null}
      <div role="alert">{problem}</div>
    </div>
  );
}
