import { useEffect, useRef, useState } from 'react';
import { useHydrated } from '../../../lib/hydration.ts';

export interface PlayerTrack {
  id: number;
  position: number;
  title: string;
  previewUrl: string | null;
}

/**
 * The controls' icons, drawn here (issue 39 item 8): the media glyphs (⏮ ⏭) are missing from
 * the fonts of some systems (Debian's Chromium showed empty boxes).
 */
const ICONS = {
  previous: 'M6 5h2v14H6zM20 5v14L9 12z',
  next: 'M16 5h2v14h-2zM4 5v14l11-7z',
  play: 'M7 4v16l13-8z',
  pause: 'M6 4h4v16H6zM14 4h4v16h-4z',
} as const;

function Icon({ name }: { name: keyof typeof ICONS }) {
  return (
    <svg className="player__icon" viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false">
      <path d={ICONS[name]} fill="currentColor" />
    </svg>
  );
}

/** The length the element knows: its duration, or the end of what it can seek to (a stream without one). */
function lengthOf(element: HTMLAudioElement): number {
  if (Number.isFinite(element.duration) && element.duration > 0) return element.duration;
  return element.seekable.length > 0 ? element.seekable.end(element.seekable.length - 1) : 0;
}

const time = (seconds: number) => (Number.isFinite(seconds) ? `${Math.floor(seconds / 60)}:${String(Math.floor(seconds % 60)).padStart(2, '0')}` : '0:00');

/**
 * The release page's player (issue 28): one <audio> streaming the previews (the browser asks
 * for byte ranges as it seeks), with play/pause, seek, previous and next as real buttons and
 * a range input, so the keyboard and a phone's touch work as everywhere else.
 */
export function Player({ tracks, current, onSelect }: { tracks: PlayerTrack[]; current: number; onSelect: (index: number) => void }) {
  const audio = useRef<HTMLAudioElement>(null);
  const [playing, setPlaying] = useState(false);
  const [position, setPosition] = useState(0);
  const [duration, setDuration] = useState(0);
  const playable = tracks.filter((track) => track.previewUrl);
  const track = tracks[current];
  const wantPlay = useRef(false);
  // On a server-rendered release page the controls wait for the page's code (decision 062).
  const hydrated = useHydrated();

  useEffect(() => {
    const element = audio.current;
    if (!element || !track?.previewUrl) return;
    setPosition(0);
    // A server-rendered page's <audio> may have read its metadata before this code ran: its
    // loadedmetadata event is gone, so the length is read from the element (issue 39 item 8).
    setDuration(element.readyState >= HTMLMediaElement.HAVE_METADATA ? lengthOf(element) : 0);
    if (wantPlay.current) void element.play().catch(() => setPlaying(false));
  }, [track?.previewUrl, hydrated]);

  if (playable.length === 0) return <p className="player__empty">Previews are being prepared.</p>;

  const step = (by: number) => {
    for (let index = current + by; index >= 0 && index < tracks.length; index += by) {
      if (tracks[index]?.previewUrl) {
        onSelect(index);
        return;
      }
    }
  };
  const toggle = () => {
    const element = audio.current;
    if (!element) return;
    if (element.paused) {
      wantPlay.current = true;
      void element.play().catch(() => setPlaying(false));
    } else {
      wantPlay.current = false;
      element.pause();
    }
  };

  return (
    <div className="player" role="group" aria-label="Preview player">
      <audio
        ref={audio}
        src={track?.previewUrl ?? undefined}
        // Not while the page's code is on the way (issue 39 item 18): on a slow connection the
        // preview took the bandwidth the Play button's code needed. Its length is read once hydrated.
        preload={hydrated ? 'metadata' : 'none'}
        onPlay={() => setPlaying(true)}
        onPause={() => setPlaying(false)}
        onTimeUpdate={(event) => setPosition(event.currentTarget.currentTime)}
        onLoadedMetadata={(event) => setDuration(lengthOf(event.currentTarget))}
        onDurationChange={(event) => setDuration(lengthOf(event.currentTarget))}
        onEnded={() => step(1)}
      />
      <p className="player__now" aria-live="polite">
        {track ? `${track.position}. ${track.title}` : ''}
      </p>
      <div className="player__controls">
        <button type="button" className="button button--secondary" onClick={() => step(-1)} aria-label="Previous track" disabled={!hydrated}>
          <Icon name="previous" />
        </button>
        <button type="button" className="button" onClick={toggle} aria-label={playing ? 'Pause' : 'Play'} disabled={!hydrated}>
          <Icon name={playing ? 'pause' : 'play'} />
        </button>
        <button type="button" className="button button--secondary" onClick={() => step(1)} aria-label="Next track" disabled={!hydrated}>
          <Icon name="next" />
        </button>
        <input
          className="player__seek"
          type="range"
          min={0}
          max={duration || 0}
          step={0.1}
          value={Math.min(position, duration || 0)}
          aria-label="Seek"
          disabled={!hydrated}
          aria-valuetext={`${time(position)} of ${time(duration)}`}
          onChange={(event) => {
            const element = audio.current;
            const at = Number(event.currentTarget.value);
            if (!element) return;
            element.currentTime = at;
            // Shown at once, paused or not (timeupdate follows while it plays).
            setPosition(at);
          }}
        />
        <span className="player__time">
          {time(position)} / {time(duration)}
        </span>
      </div>
    </div>
  );
}
