import { useEffect, useState } from 'react';

/**
 * The shop's clock as this page reads it: the server's time when the data was read, carried
 * forward by the browser's own clock (a fan's wrong clock does not move the countdown).
 * Ticks every `everyMs` while `running`.
 */
export function useDropClock(serverTime: string | undefined, running: boolean, everyMs = 1000): number {
  const [offset] = useState(() => (serverTime ? Date.parse(serverTime) - Date.now() : 0));
  // The first render shows the server's own instant: the server's rendering and the hydration agree.
  const [now, setNow] = useState(() => (serverTime ? Date.parse(serverTime) : Date.now()));
  useEffect(() => {
    if (!running) return undefined;
    const timer = setInterval(() => setNow(Date.now() + offset), everyMs);
    return () => clearInterval(timer);
  }, [offset, running, everyMs]);
  return now;
}

/** A duration as the countdowns show it: "4:59", "1:02:03", "3 days 4:05:06". */
export function formatCountdown(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const days = Math.floor(total / 86_400);
  const hours = Math.floor((total % 86_400) / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = total % 60;
  const pad = (n: number) => String(n).padStart(2, '0');
  const clock = hours > 0 || days > 0 ? `${hours}:${pad(minutes)}:${pad(seconds)}` : `${minutes}:${pad(seconds)}`;
  return days > 0 ? `${days} day${days === 1 ? '' : 's'} ${clock}` : clock;
}

/** An estimated wait in words: "under a minute", "about 3 minutes". */
export function formatWait(seconds: number): string {
  if (seconds < 60) return 'under a minute';
  const minutes = Math.round(seconds / 60);
  return minutes === 1 ? 'about 1 minute' : `about ${minutes} minutes`;
}

/** A moment as the drop page writes it, in the fan's own time zone. */
export function formatMoment(iso: string): string {
  return new Date(iso).toLocaleString('en-US', { dateStyle: 'medium', timeStyle: 'short' });
}
