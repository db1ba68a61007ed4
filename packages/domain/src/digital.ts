/**
 * Digital releases (issue 28): formats a fan may download, the messages fans and the label
 * read, and the shape of a download code. Pure: no I/O.
 */
import { formatShipDate } from './preorders.ts';

export const DOWNLOAD_FORMATS = ['mp3-320', 'mp3-v0', 'aac', 'flac', 'alac'] as const;
export type DownloadFormat = (typeof DOWNLOAD_FORMATS)[number];

export const DOWNLOAD_FORMAT_LABELS: Record<DownloadFormat, string> = {
  'mp3-320': 'MP3 320',
  'mp3-v0': 'MP3 V0',
  aac: 'AAC',
  flac: 'FLAC',
  alac: 'ALAC',
};

export const RELEASE_KINDS = ['album', 'ep', 'single'] as const;
export type ReleaseKind = (typeof RELEASE_KINDS)[number];

export const DIGITAL_MESSAGES = {
  releaseNotFound: 'This release does not exist.',
  trackNotFound: 'This track does not exist.',
  masterNotFound: 'Upload the master first: no lossless master is stored at that path.',
  notOwned: 'You do not own this release.',
  notEncoded: 'This release is still being prepared for download: try again in a few minutes.',
  codeNotFound: 'This code is not valid.',
  codeUsed: 'This code has already been redeemed.',
  linkExpired: 'This download link has expired: open your library for a new one.',
  linkInvalid: 'This download link is not valid.',
  isrc: 'An ISRC is 12 characters: 2 letters, 3 letters or digits, 7 digits (e.g. USSFR2600001).',
  upc: 'A UPC is 12 or 13 digits.',
  releaseDate: 'Enter the release date as YYYY-MM-DD.',
  title: 'Enter a title.',
  artist: 'Enter the artist.',
  tracks: 'A release has 1 to 100 tracks.',
  price: 'Prices are whole cents, 0 or more.',
  previewSeconds: 'A preview is 5 to 120 seconds long, or the full track.',
  codeCount: 'Generate 1 to 5000 codes at a time.',
  duration: 'A duration is whole seconds, from 0:01 to 24:00:00.',
  /** A preorder's downloads before its release date (the date is the label's calendar day). */
  notOutYet: (releaseDate: string) => `${availableOnLabel(releaseDate)}: its downloads open on the release date.`,
  /** Checkout's refusals of a digital line (issue 39 item 7): one copy, not twice in one cart, not what the fan owns. */
  oneCopy: (name: string) => `"${name}" is a download: a cart takes one copy of it.`,
  albumIncludes: (album: string, track: string) => `"${album}" already includes "${track}": remove the track from your cart to continue.`,
  alreadyOwned: (name: string) => `You already own "${name}": it is in your library. Remove it from your cart to continue.`,
  /** The release page and the cart (issue 39 item 7). */
  ownedRelease: 'You own this release.',
  ownedTrack: 'You own this track.',
  tracksRemoved: (album: string) => `${album} includes the tracks you had in your cart: they were removed.`,
  trackInAlbum: (track: string) => `${track} is part of the album in your cart.`,
} as const;

/** The longest lyrics a track keeps (characters). */
export const MAX_LYRICS_LENGTH = 20_000;

/** "m:ss" (or "h:mm:ss") as the release page and the console show a duration. */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const hours = Math.floor(s / 3600);
  const minutes = Math.floor((s % 3600) / 60);
  const rest = String(s % 60).padStart(2, '0');
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, '0')}:${rest}` : `${minutes}:${rest}`;
}

/** What a label types for a duration ("3:05", "1:02:03" or plain seconds) in seconds; undefined when it is not one. */
export function parseDuration(text: string): number | undefined {
  const trimmed = text.trim();
  if (/^\d{1,5}$/.test(trimmed)) return Number(trimmed);
  const match = /^(?:(\d{1,2}):([0-5]\d)|(\d{1,3})):([0-5]\d)$/.exec(trimmed);
  if (!match) return undefined;
  const [, hours, minutesOfHour, minutes, seconds] = match;
  return Number(hours ?? 0) * 3600 + Number(minutesOfHour ?? minutes) * 60 + Number(seconds);
}

/** What the library shows for music bought before its release date: "Available on Mar 5, 2027". */
export function availableOnLabel(releaseDate: string): string {
  return `Available on ${formatShipDate(releaseDate)}`;
}

/**
 * Downloads open on the release date (decision 061, session 10): a release dated after the
 * label's `today` (YYYY-MM-DD) is a preorder whose music is not out yet. Decided when asked,
 * so the day comes without any job having to run.
 */
export function downloadsOpen(releaseDate: string, today: string): boolean {
  return releaseDate <= today;
}

/** Codes as printed on a card: 12 characters from an alphabet without 0/O or 1/I/L, shown in groups of 4. */
export const CODE_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
export const CODE_LENGTH = 12;

/** What a fan types, made comparable: upper case, spaces and dashes dropped. */
export function normalizeCode(input: string): string {
  return input.toUpperCase().replace(/[\s-]/g, '');
}

export function formatCode(code: string): string {
  return code.match(/.{1,4}/g)?.join('-') ?? code;
}

const ISRC = /^[A-Z]{2}[A-Z0-9]{3}\d{7}$/;
export function isIsrc(value: string): boolean {
  return ISRC.test(value.replace(/-/g, '').toUpperCase());
}

/** One CSV line per code, for the cards that go in a sleeve. */
export function codesCsv(releaseTitle: string, codes: readonly { code: string; redeemedAt: string | null; redeemedBy: string | null }[]): string {
  const cell = (value: string) => (/[",\n\r]/.test(value) || /^[=+\-@\t]/.test(value) ? `"${value.replace(/^([=+\-@\t])/, "'$1").replace(/"/g, '""')}"` : value);
  const lines = [
    'release,code,redeemed_at,redeemed_by',
    ...codes.map((row) => [releaseTitle, formatCode(row.code), row.redeemedAt ?? '', row.redeemedBy ?? ''].map(cell).join(',')),
  ];
  return `${lines.join('\r\n')}\r\n`;
}
