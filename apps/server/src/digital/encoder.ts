import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { addMp4Cover } from './mp4-cover.ts';

/**
 * The audio encoder (issue 28, decision 056): the static ffmpeg and ffprobe that the npm
 * packages `@ffmpeg-installer/ffmpeg` and `@ffprobe-installer/ffprobe` install, so
 * `npm install` sets it up. Spawned without a shell, with an argument list, a time limit
 * and a cap on what it may print; its inputs are only masters admins uploaded (checked
 * by content first) and artwork the shop re-encoded.
 */
const require = createRequire(import.meta.url);

export function ffmpegPath(): string {
  return (require('@ffmpeg-installer/ffmpeg') as { path: string }).path;
}

export function ffprobePath(): string {
  return (require('@ffprobe-installer/ffprobe') as { path: string }).path;
}

export interface RunLimits {
  /** Killed (SIGKILL) after this long. */
  timeoutMs: number;
  /** Standard output kept up to this many bytes; more is an error. */
  maxOutputBytes?: number;
}

export class EncoderError extends Error {
  readonly detail: string;

  constructor(message: string, detail: string) {
    super(message);
    this.name = 'EncoderError';
    this.detail = detail;
  }
}

const STDERR_KEPT = 4096;

/** Runs a tool with `args` (no shell); resolves with its standard output. */
export function runTool(binary: string, args: readonly string[], limits: RunLimits): Promise<Buffer> {
  const maxOutput = limits.maxOutputBytes ?? 1024 * 1024;
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, { shell: false, stdio: ['ignore', 'pipe', 'pipe'], env: {} });
    const out: Buffer[] = [];
    let outBytes = 0;
    let stderr = '';
    let failure: EncoderError | undefined;
    const timer = setTimeout(() => {
      failure = new EncoderError(`${path.basename(binary)} took longer than ${limits.timeoutMs} ms.`, stderr);
      child.kill('SIGKILL');
    }, limits.timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => {
      outBytes += chunk.length;
      if (outBytes > maxOutput) {
        failure ??= new EncoderError(`${path.basename(binary)} printed more than ${maxOutput} bytes.`, stderr);
        child.kill('SIGKILL');
        return;
      }
      out.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-STDERR_KEPT);
    });
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(new EncoderError(`${path.basename(binary)} could not start: ${error.message}`, ''));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (failure) reject(failure);
      else if (code !== 0) reject(new EncoderError(`${path.basename(binary)} failed (${signal ?? `exit ${code}`}): ${lastLine(stderr)}`, stderr));
      else resolve(Buffer.concat(out));
    });
  });
}

function lastLine(text: string): string {
  const lines = text.trim().split('\n');
  return lines[lines.length - 1] ?? '';
}

/** A lossless master's container, from its first bytes (never from its name). */
export type MasterFormat = 'wav' | 'aiff' | 'flac';

export function sniffMasterFormat(bytes: Uint8Array): MasterFormat | undefined {
  const ascii = (start: number, end: number) => Buffer.from(bytes.subarray(start, end)).toString('latin1');
  if (bytes.length >= 12 && (ascii(0, 4) === 'RIFF' || ascii(0, 4) === 'RF64') && ascii(8, 12) === 'WAVE') return 'wav';
  if (bytes.length >= 12 && ascii(0, 4) === 'FORM' && (ascii(8, 12) === 'AIFF' || ascii(8, 12) === 'AIFC')) return 'aiff';
  if (bytes.length >= 4 && ascii(0, 4) === 'fLaC') return 'flac';
  return undefined;
}

/** What ffprobe's format names must be for each container we sniffed. */
const PROBE_FORMATS: Record<MasterFormat, string> = { wav: 'wav', aiff: 'aiff', flac: 'flac' };
/** Codecs a lossless master may carry: PCM of any width and order, or FLAC. */
const LOSSLESS_CODEC = /^(pcm_[a-z0-9]+|flac)$/;

export interface AudioProbe {
  formatName: string;
  codec: string;
  durationSeconds: number;
  sampleRate: number;
  channels: number;
  /** Bits of one sample as stored (PCM: 16, 24, 32; 0 when the codec does not say). */
  bitsPerSample: number;
  tags: Record<string, string>;
}

/** Reads a file's container and first audio stream with ffprobe. */
export async function probeAudio(file: string, timeoutMs = 30_000): Promise<AudioProbe> {
  const out = await runTool(ffprobePath(), ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', '--', file], { timeoutMs });
  const parsed = JSON.parse(out.toString('utf8')) as {
    format?: { format_name?: string; duration?: string; tags?: Record<string, string> };
    streams?: { codec_type?: string; codec_name?: string; sample_rate?: string; channels?: number; duration?: string; bits_per_sample?: number; bits_per_raw_sample?: string }[];
  };
  const audio = parsed.streams?.find((stream) => stream.codec_type === 'audio');
  if (!audio || !parsed.format) throw new EncoderError('No audio stream found.', '');
  const duration = Number(parsed.format.duration ?? audio.duration ?? NaN);
  const tags = Object.fromEntries(Object.entries(parsed.format.tags ?? {}).map(([key, value]) => [key.toLowerCase(), value]));
  return {
    formatName: parsed.format.format_name ?? '',
    codec: audio.codec_name ?? '',
    durationSeconds: Number.isFinite(duration) ? duration : 0,
    sampleRate: Number(audio.sample_rate ?? 0),
    channels: audio.channels ?? 0,
    bitsPerSample: audio.bits_per_sample || Number(audio.bits_per_raw_sample ?? 0) || 0,
    tags,
  };
}

/**
 * What a master may declare (issue 40 item 5): a 2 KB WAV declaring 1 Hz became a 1,000-second
 * track, and a WAV declaring a 4 GB data chunk was taken at its word. Rates and channels of real
 * recordings, at most four hours, and (for PCM, whose size follows from its header) no more audio
 * than the file's bytes hold.
 */
export const MASTER_LIMITS = { minSampleRate: 8_000, maxSampleRate: 384_000, maxChannels: 8, maxSeconds: 4 * 60 * 60 } as const;

/** Whether what ffprobe read from the header is audio the file really holds. */
export function declaresWhatItHolds(probe: AudioProbe, fileBytes: number): boolean {
  if (probe.sampleRate < MASTER_LIMITS.minSampleRate || probe.sampleRate > MASTER_LIMITS.maxSampleRate) return false;
  if (probe.channels < 1 || probe.channels > MASTER_LIMITS.maxChannels) return false;
  if (!(probe.durationSeconds > 0) || probe.durationSeconds > MASTER_LIMITS.maxSeconds) return false;
  if (!probe.codec.startsWith('pcm_')) return true;
  if (probe.bitsPerSample <= 0) return false;
  // The samples the header's duration needs, against the bytes there are (a frame's slack allowed).
  const needed = probe.durationSeconds * probe.sampleRate * probe.channels * (probe.bitsPerSample / 8);
  return needed <= fileBytes + probe.channels * 8;
}

/**
 * Whether every chunk of a WAV (RIFF, little-endian) or AIFF (FORM, big-endian) master that
 * `head` shows ends inside the file: a data chunk declaring 4 GB in a 176 KB file does not.
 */
export function chunksFit(format: MasterFormat, head: Uint8Array, fileBytes: number): boolean {
  if (format === 'flac') return true;
  const view = Buffer.from(head.buffer, head.byteOffset, head.byteLength);
  const sizeAt = (offset: number) => (format === 'wav' ? view.readUInt32LE(offset) : view.readUInt32BE(offset));
  if (sizeAt(4) + 8 > fileBytes + 1) return false;
  let offset = 12;
  while (offset + 8 <= view.length) {
    const size = sizeAt(offset + 4);
    const end = offset + 8 + size;
    if (end > fileBytes + 1) return false;
    offset = end + (size % 2);
  }
  return true;
}

async function readHead(file: string, bytes: number): Promise<Uint8Array> {
  const handle = await fs.promises.open(file, 'r');
  try {
    const buffer = Buffer.alloc(bytes);
    const { bytesRead } = await handle.read(buffer, 0, bytes, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** A master is accepted when its magic bytes and ffprobe agree on a lossless container and codec with audio in it that the file really holds. */
export async function checkMaster(file: string, head: Uint8Array): Promise<{ format: MasterFormat; probe: AudioProbe } | undefined> {
  const format = sniffMasterFormat(head);
  if (!format) return undefined;
  let probe: AudioProbe;
  try {
    probe = await probeAudio(file);
  } catch {
    return undefined;
  }
  if (!probe.formatName.split(',').includes(PROBE_FORMATS[format]) || !LOSSLESS_CODEC.test(probe.codec)) return undefined;
  const { size } = await fs.promises.stat(file);
  if (!declaresWhatItHolds(probe, size) || !chunksFit(format, await readHead(file, 4096), size)) return undefined;
  return { format, probe };
}

/** The files every track is encoded into; `preview` is what the release page streams. */
export const AUDIO_FORMATS = ['mp3-320', 'mp3-v0', 'aac', 'flac', 'alac', 'preview'] as const;
export type AudioFormat = (typeof AUDIO_FORMATS)[number];

export const FORMAT_FILES: Record<AudioFormat, { extension: string; contentType: string }> = {
  'mp3-320': { extension: 'mp3', contentType: 'audio/mpeg' },
  'mp3-v0': { extension: 'mp3', contentType: 'audio/mpeg' },
  aac: { extension: 'm4a', contentType: 'audio/mp4' },
  flac: { extension: 'flac', contentType: 'audio/flac' },
  alac: { extension: 'm4a', contentType: 'audio/mp4' },
  preview: { extension: 'mp3', contentType: 'audio/mpeg' },
};

const CODEC_ARGS: Record<AudioFormat, string[]> = {
  'mp3-320': ['-c:a', 'libmp3lame', '-b:a', '320k', '-id3v2_version', '3'],
  'mp3-v0': ['-c:a', 'libmp3lame', '-q:a', '0', '-id3v2_version', '3'],
  aac: ['-c:a', 'aac', '-b:a', '256k', '-movflags', '+use_metadata_tags'],
  flac: ['-c:a', 'flac', '-compression_level', '5'],
  alac: ['-c:a', 'alac', '-movflags', '+use_metadata_tags'],
  preview: ['-c:a', 'libmp3lame', '-b:a', '128k', '-id3v2_version', '3'],
};

export interface TrackTags {
  title: string;
  artist: string;
  album: string;
  trackNumber: number;
  trackCount: number;
  isrc: string | null;
}

export interface EncodeInput {
  master: string;
  output: string;
  format: AudioFormat;
  tags: TrackTags;
  /** A JPEG or PNG the shop re-encoded: embedded by ffmpeg in MP3 and FLAC, and afterwards in AAC and ALAC (this ffmpeg's MP4 muxer drops cover pictures; mp4-cover.ts). */
  artwork?: string;
  /** Preview only: the clip's length in seconds; absent for the full track. */
  previewSeconds?: number;
  timeoutMs: number;
}

/** Control characters would end a tag early in some players: dropped. */
// eslint-disable-next-line no-control-regex -- dropping control characters is the point
const tagValue = (value: string) => value.replace(/[\u0000-\u001f\u007f]/g, ' ');

export function encodeArgs(input: EncodeInput): string[] {
  const mp4 = FORMAT_FILES[input.format].extension === 'm4a';
  const withArt = input.artwork !== undefined && !mp4;
  const isrcKey = FORMAT_FILES[input.format].extension === 'mp3' ? 'TSRC' : 'ISRC';
  const { tags } = input;
  return [
    '-hide_banner',
    '-nostdin',
    '-loglevel',
    'error',
    '-y',
    '-i',
    input.master,
    ...(withArt ? ['-i', input.artwork!] : []),
    '-map',
    '0:a:0',
    ...(withArt ? ['-map', '1:v:0', '-c:v', 'copy', '-disposition:v', 'attached_pic'] : []),
    '-map_metadata',
    '-1',
    ...(input.format === 'preview' && input.previewSeconds ? ['-t', String(input.previewSeconds)] : []),
    ...CODEC_ARGS[input.format],
    '-metadata',
    `title=${tagValue(tags.title)}`,
    '-metadata',
    `artist=${tagValue(tags.artist)}`,
    '-metadata',
    `album=${tagValue(tags.album)}`,
    '-metadata',
    `track=${tags.trackNumber}/${tags.trackCount}`,
    ...(tags.isrc ? ['-metadata', `${isrcKey}=${tagValue(tags.isrc)}`] : []),
    input.output,
  ];
}

export async function encode(input: EncodeInput): Promise<void> {
  await runTool(ffmpegPath(), encodeArgs(input), { timeoutMs: input.timeoutMs });
  if (input.artwork !== undefined && FORMAT_FILES[input.format].extension === 'm4a') await addMp4Cover(input.output, await fs.promises.readFile(input.artwork));
}
