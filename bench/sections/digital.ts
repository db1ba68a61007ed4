import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { uploadBytesResumable } from '@storefront/sdk/storage/upload-task.ts';
import { createStorage, ref } from '@storefront/sdk/storage/storage.ts';
import { AUDIO_FORMATS, FORMAT_FILES, encode } from '../../apps/server/src/digital/encoder.ts';
import { sineWav } from '../../apps/server/src/digital/testing/audio.ts';
import type { AppServer } from '../lib/app-server.ts';
import { ADMIN, callFunction, signIn } from '../lib/client.ts';
import { figure, round, type Figure } from '../lib/figures.ts';
import { captureRoutes, startReferenceServer } from '../lib/raw-server.ts';

/**
 * Issue 28's figures (decision 061):
 * - encode overhead: the time from attaching a master to the track showing Ready (the queue's
 *   pick-up, the master's read from storage, six ffmpeg runs, the files' writes and rows),
 *   divided by the six ffmpeg runs alone on the same file, one after the other, in this process;
 * - download throughput: a signed FLAC link read back to back through the shop (signature,
 *   ownership check, the storage driver), divided by bare node:http sending the same bytes
 *   from memory (bench/workers/raw-server.ts), one request at a time, in MB/s.
 */
export async function benchDigital(app: AppServer, options: { seconds: number; downloads: number }) {
  const token = await signIn(app.base, ADMIN.email, ADMIN.password);
  const call = <T>(name: string, data: unknown) => callFunction<T>(app.base, name, data, token);
  const { id: releaseId, trackIds } = await call<{ id: number; trackIds: number[] }>('saveRelease', {
    kind: 'single',
    title: 'Bench Tone',
    artist: 'The Bench',
    releaseDate: '2026-01-15',
    priceCents: 100,
    published: true,
    tracks: [{ title: 'Tone', priceCents: 100 }],
  });
  const trackId = trackIds[0]!;
  const master = sineWav(options.seconds);
  const objectPath = `masters/bench/${trackId}.wav`;
  await uploadBytesResumable(ref(createStorage({ baseUrl: app.base, getAuthToken: () => token }), objectPath), master);

  const jobStarted = performance.now();
  await call('setTrackMaster', { trackId, path: objectPath });
  for (;;) {
    const { releases } = await call<{ releases: { id: number; tracks: { encodeStatus: string; encodeError: string | null }[] }[] }>('listReleases', null);
    const track = releases.find((release) => release.id === releaseId)!.tracks[0]!;
    if (track.encodeStatus === 'ready') break;
    if (track.encodeStatus === 'failed') throw new Error(`Encoding failed: ${track.encodeError}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const jobMs = performance.now() - jobStarted;

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-encode-'));
  let aloneMs: number;
  try {
    const file = path.join(dir, 'master.wav');
    fs.writeFileSync(file, master);
    const tags = { title: 'Tone', artist: 'The Bench', album: 'Bench Tone', trackNumber: 1, trackCount: 1, isrc: null };
    const aloneStarted = performance.now();
    for (const format of AUDIO_FORMATS) {
      await encode({
        master: file,
        output: path.join(dir, `${format}.${FORMAT_FILES[format].extension}`),
        format,
        tags,
        timeoutMs: 600_000,
        ...(format === 'preview' ? { previewSeconds: 30 } : {}),
      });
    }
    aloneMs = performance.now() - aloneStarted;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }

  // The admin owns the single through a code, as a fan would.
  const { codes } = await call<{ codes: string[] }>('createDownloadCodes', { releaseId, count: 1 });
  await call('redeemDownloadCode', { code: codes[0] });
  const { url } = await call<{ url: string }>('createDownloadLink', { releaseId, trackId, format: 'flac' });
  const readAll = async (base: string) => {
    let bytes = 0;
    const started = performance.now();
    for (let i = 0; i < options.downloads; i += 1) {
      const response = await fetch(`${base}${url}`);
      if (!response.ok) throw new Error(`Download answered ${response.status}`);
      bytes += (await response.arrayBuffer()).byteLength;
    }
    return bytes / 1e6 / ((performance.now() - started) / 1000);
  };
  await readAll(app.base);
  const shopMBps = await readAll(app.base);
  const raw = await startReferenceServer('raw', await captureRoutes(app.base, [url]));
  let rawMBps: number;
  try {
    await readAll(raw.base);
    rawMBps = await readAll(raw.base);
  } finally {
    await raw.stop();
  }

  const minutes = options.seconds / 60;
  const figures: Figure[] = [
    figure('digital.encode.jobSecondsPerMinute', 'Encode job: seconds per minute of audio (6 formats)', round(jobMs / 1000 / minutes, 1), 's'),
    figure('digital.encode.aloneSecondsPerMinute', 'ffmpeg alone: seconds per minute of audio (6 formats)', round(aloneMs / 1000 / minutes, 1), 's'),
    figure(
      'digital.encode.overheadRatio',
      'Encode job time / ffmpeg alone (the job’s overhead)',
      round(jobMs / aloneMs, 2),
      'x',
      undefined,
      'queue pick-up, storage reads and writes, rows and progress',
    ),
    figure('digital.download.shopMBps', 'Signed FLAC download through the shop', round(shopMBps, 1), 'MB/s'),
    figure('digital.download.rawMBps', 'The same bytes from bare node:http', round(rawMBps, 1), 'MB/s'),
    figure('digital.download.ratio', 'Download throughput: shop / bare node:http', round(shopMBps / rawMBps, 2), 'x'),
  ];
  return { figures, audioSeconds: options.seconds, downloads: options.downloads, jobMs: round(jobMs, 0), aloneMs: round(aloneMs, 0) };
}
