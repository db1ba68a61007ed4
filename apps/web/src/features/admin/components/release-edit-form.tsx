import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import type { FunctionInput } from '@storefront/domain/contracts/index.ts';
import { DIGITAL_MESSAGES, formatDuration, MAX_LYRICS_LENGTH, parseDuration } from '@storefront/domain/digital.ts';
import { errorSentence } from '../../../lib/error-message.ts';
import { toast } from '../../../lib/toast.ts';
import { useSaveRelease, type ConsoleRelease } from '../api/music.ts';
import { centsToDecimal } from '@storefront/domain/money.ts';

type ConsoleTrack = ConsoleRelease['tracks'][number];
type SaveInput = FunctionInput<'saveRelease'>;

/** The release as saveRelease takes it, every field as stored: an edit changes only what it names. */
export function releaseInput(release: ConsoleRelease, changes: Partial<SaveInput> = {}): SaveInput {
  return {
    id: release.id,
    kind: release.kind,
    title: release.title,
    artist: release.artist,
    releaseDate: release.releaseDate,
    artwork: release.artwork,
    credits: release.credits,
    upc: release.upc,
    priceCents: release.priceCents,
    nameYourPrice: release.nameYourPrice,
    previewSeconds: release.previewSeconds,
    published: release.published,
    tracks: release.tracks.map((track) => ({
      id: track.id,
      title: track.title,
      isrc: track.isrc,
      lyrics: track.lyrics,
      shownDurationSeconds: track.shownDurationSeconds,
      priceCents: track.priceCents,
      nameYourPrice: track.nameYourPrice,
    })),
    ...changes,
  };
}

interface TrackDraft {
  id: number;
  title: string;
  isrc: string;
  duration: string;
  price: string;
  nameYourPrice: boolean;
  lyrics: string;
}

const dollars = (cents: number | null) => (cents === null ? '' : centsToDecimal(cents));
const cents = (text: string) => (/^\d{1,6}(\.\d{1,2})?$/.test(text.trim()) ? Math.round(Number(text.trim()) * 100) : undefined);

const draftOf = (track: ConsoleTrack): TrackDraft => ({
  id: track.id,
  title: track.title,
  isrc: track.isrc ?? '',
  duration: track.shownDurationSeconds === null ? '' : formatDuration(track.shownDurationSeconds),
  price: dollars(track.priceCents),
  nameYourPrice: track.nameYourPrice,
  lyrics: track.lyrics,
});

/**
 * Editing a release after it was created (issue 28, decision 064): the release's title, artist,
 * date, credits and UPC, and each track's title, ISRC, shown duration, price, order (Move up /
 * Move down, by keyboard too) and lyrics. Tracks keep their ids, so their masters stay.
 */
export function ReleaseEditForm({ release, onDone }: { release: ConsoleRelease; onDone: () => void }) {
  const id = useId();
  const save = useSaveRelease();
  const [fields, setFields] = useState({ title: release.title, artist: release.artist, releaseDate: release.releaseDate, credits: release.credits, upc: release.upc ?? '' });
  const [tracks, setTracks] = useState(() => release.tracks.map(draftOf));
  const [selling, setSelling] = useState({
    price: dollars(release.priceCents),
    nameYourPrice: release.nameYourPrice,
    preview: release.previewSeconds === null ? '' : String(release.previewSeconds),
    published: release.published,
  });
  const [problem, setProblem] = useState<string | null>(null);
  const [moved, setMoved] = useState<{ trackId: number; direction: 'up' | 'down'; message: string } | null>(null);
  const moveButtons = useRef(new Map<string, HTMLButtonElement>());

  // Focus stays with the moved track: on the same button, or the other one when it reached an end.
  useEffect(() => {
    if (!moved) return;
    const index = tracks.findIndex((track) => track.id === moved.trackId);
    const atEnd = moved.direction === 'up' ? index === 0 : index === tracks.length - 1;
    const direction = atEnd ? (moved.direction === 'up' ? 'down' : 'up') : moved.direction;
    moveButtons.current.get(`${moved.trackId}-${direction}`)?.focus();
  }, [moved, tracks]);

  const setField = (name: keyof typeof fields) => (event: { currentTarget: { value: string } }) => setFields({ ...fields, [name]: event.currentTarget.value });
  const setTrack = (trackId: number, change: Partial<TrackDraft>) => setTracks((current) => current.map((track) => (track.id === trackId ? { ...track, ...change } : track)));
  const move = (index: number, direction: 'up' | 'down') => {
    const target = direction === 'up' ? index - 1 : index + 1;
    const track = tracks[index];
    if (!track || target < 0 || target >= tracks.length) return;
    const next = [...tracks];
    [next[index], next[target]] = [next[target]!, track];
    setTracks(next);
    setMoved({ trackId: track.id, direction, message: `${track.title || 'The track'} moved to position ${target + 1} of ${next.length}.` });
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const inputs: SaveInput['tracks'] = [];
    for (const [index, track] of tracks.entries()) {
      const shown = track.duration.trim() ? parseDuration(track.duration) : null;
      if (shown === undefined || (shown !== null && (shown < 1 || shown > 86_400))) return setProblem(`Track ${index + 1}: ${DIGITAL_MESSAGES.duration}`);
      const price = track.price.trim() ? cents(track.price) : null;
      if (price === undefined) return setProblem(`Track ${index + 1}: ${DIGITAL_MESSAGES.price}`);
      inputs.push({
        id: track.id,
        title: track.title,
        isrc: track.isrc.trim() || null,
        lyrics: track.lyrics,
        shownDurationSeconds: shown,
        priceCents: price,
        nameYourPrice: price !== null && track.nameYourPrice,
      });
    }
    const priceCents = cents(selling.price);
    if (priceCents === undefined) return setProblem(DIGITAL_MESSAGES.price);
    const previewSeconds = selling.preview.trim() ? Number(selling.preview) : null;
    if (previewSeconds !== null && !(Number.isInteger(previewSeconds) && previewSeconds >= 5 && previewSeconds <= 120)) return setProblem(DIGITAL_MESSAGES.previewSeconds);
    setProblem(null);
    try {
      await save.mutateAsync(
        releaseInput(release, {
          ...fields,
          upc: fields.upc.trim() || null,
          priceCents,
          nameYourPrice: selling.nameYourPrice,
          previewSeconds,
          published: selling.published,
          tracks: inputs,
        }),
      );
      toast.success(`${fields.title} saved.`);
      onDone();
    } catch (error) {
      setProblem(errorSentence(error, 'The release could not be saved.'));
    }
  };

  const input = (name: keyof typeof fields, label: string, props: Record<string, unknown> = {}) => (
    <p>
      <label htmlFor={`${id}-${name}`}>{label}</label>
      <input id={`${id}-${name}`} className="field-control" value={fields[name]} onChange={setField(name)} {...props} />
    </p>
  );

  return (
    <form className="music-edit" onSubmit={(event) => void submit(event)} aria-label={`Edit ${release.title}`} noValidate>
      {input('title', 'Title', { required: true, maxLength: 200 })}
      {input('artist', 'Artist', { required: true, maxLength: 200 })}
      {input('releaseDate', 'Release date', { type: 'date', required: true })}
      {input('upc', 'UPC (12 or 13 digits)', { inputMode: 'numeric', maxLength: 13 })}
      <p>
        <label htmlFor={`${id}-credits`}>Credits</label>
        <textarea id={`${id}-credits`} className="field-control" value={fields.credits} onChange={setField('credits')} rows={2} maxLength={5000} />
      </p>
      <p>
        <label htmlFor={`${id}-price`}>Price of the release (USD)</label>
        <input
          id={`${id}-price`}
          className="field-control"
          value={selling.price}
          inputMode="decimal"
          maxLength={9}
          onChange={(event) => setSelling({ ...selling, price: event.currentTarget.value })}
        />
      </p>
      <p>
        <label>
          <input type="checkbox" checked={selling.nameYourPrice} onChange={(event) => setSelling({ ...selling, nameYourPrice: event.currentTarget.checked })} /> Name your price for
          the release (its price is the minimum)
        </label>
      </p>
      <p>
        <label htmlFor={`${id}-preview`}>Preview length in seconds (5 to 120; empty: the full track)</label>
        <input
          id={`${id}-preview`}
          className="field-control"
          value={selling.preview}
          inputMode="numeric"
          maxLength={3}
          onChange={(event) => setSelling({ ...selling, preview: event.currentTarget.value })}
        />
      </p>
      <p>
        <label>
          <input type="checkbox" checked={selling.published} onChange={(event) => setSelling({ ...selling, published: event.currentTarget.checked })} /> Published
        </label>
      </p>
      <ol className="music-edit__tracks">
        {tracks.map((track, index) => (
          <li key={track.id}>
            <fieldset className="music-edit__track">
              <legend>Track {index + 1}</legend>
              <p>
                <label htmlFor={`${id}-${track.id}-title`}>Title</label>
                <input
                  id={`${id}-${track.id}-title`}
                  className="field-control"
                  value={track.title}
                  maxLength={200}
                  required
                  onChange={(event) => setTrack(track.id, { title: event.currentTarget.value })}
                />
              </p>
              <p>
                <label htmlFor={`${id}-${track.id}-isrc`}>ISRC</label>
                <input
                  id={`${id}-${track.id}-isrc`}
                  className="field-control"
                  value={track.isrc}
                  maxLength={15}
                  onChange={(event) => setTrack(track.id, { isrc: event.currentTarget.value })}
                />
              </p>
              <p>
                <label htmlFor={`${id}-${track.id}-duration`}>Duration shown (m:ss, empty: the master’s)</label>
                <input
                  id={`${id}-${track.id}-duration`}
                  className="field-control"
                  value={track.duration}
                  inputMode="numeric"
                  maxLength={8}
                  onChange={(event) => setTrack(track.id, { duration: event.currentTarget.value })}
                />
              </p>
              <p>
                <label htmlFor={`${id}-${track.id}-price`}>Price alone (USD, empty: album only)</label>
                <input
                  id={`${id}-${track.id}-price`}
                  className="field-control"
                  value={track.price}
                  inputMode="decimal"
                  maxLength={9}
                  onChange={(event) => setTrack(track.id, { price: event.currentTarget.value })}
                />
              </p>
              <p>
                <label>
                  <input
                    type="checkbox"
                    checked={track.nameYourPrice}
                    disabled={!track.price.trim()}
                    onChange={(event) => setTrack(track.id, { nameYourPrice: event.currentTarget.checked })}
                  />{' '}
                  Name your price (the price is the minimum)
                </label>
              </p>
              <p>
                <label htmlFor={`${id}-${track.id}-lyrics`}>Lyrics (optional)</label>
                <textarea
                  id={`${id}-${track.id}-lyrics`}
                  className="field-control"
                  value={track.lyrics}
                  rows={3}
                  maxLength={MAX_LYRICS_LENGTH}
                  onChange={(event) => setTrack(track.id, { lyrics: event.currentTarget.value })}
                />
              </p>
              <p className="music-edit__move">
                {(['up', 'down'] as const).map((direction) => (
                  <button
                    key={direction}
                    ref={(element) => {
                      if (element) moveButtons.current.set(`${track.id}-${direction}`, element);
                      else moveButtons.current.delete(`${track.id}-${direction}`);
                    }}
                    type="button"
                    className="button button--secondary"
                    disabled={direction === 'up' ? index === 0 : index === tracks.length - 1}
                    onClick={() => move(index, direction)}
                  >
                    Move {direction}
                    <span className="visually-hidden">: {track.title || `track ${index + 1}`}</span>
                  </button>
                ))}
              </p>
            </fieldset>
          </li>
        ))}
      </ol>
      <p className="visually-hidden" aria-live="polite">
        {moved?.message ?? ''}
      </p>
      {problem ? (
        <p role="alert" className="notice notice--error">
          {problem}
        </p>
      ) : null}
      <p className="music-edit__actions">
        <button type="submit" className="button" disabled={save.isPending}>
          Save changes
        </button>{' '}
        <button type="button" className="button button--secondary" onClick={onDone}>
          Cancel
        </button>
      </p>
    </form>
  );
}
