// `node --import tsx bench/first-visits-only.ts [runs]`: the first-visit figures of issue 39
// item 18 alone (bench/sections/first-visits.ts, part of the frontend section), for working on
// them without the rest of the bench: the real server on a fresh embedded database, one
// published release with an encoded track, then the figures. Builds nothing: run
// `npm run build` first (the server serves apps/web/dist as it is).
import os from 'node:os';
import path from 'node:path';
import { uploadBytesResumable } from '@storefront/sdk/storage/upload-task.ts';
import { createStorage, ref } from '@storefront/sdk/storage/storage.ts';
import { sineWav } from '../apps/server/src/digital/testing/audio.ts';
import { startAppServer } from './lib/app-server.ts';
import { ADMIN, callFunction, signIn } from './lib/client.ts';
import { benchFirstVisits } from './sections/first-visits.ts';

const runs = Number(process.argv[2] ?? 3);
const load = () =>
  os
    .loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');

const app = await startAppServer(path.join(os.tmpdir(), `first-visits-${process.pid}.log`));
try {
  const token = await signIn(app.base, ADMIN.email, ADMIN.password);
  const call = <T>(name: string, data: unknown) => callFunction<T>(app.base, name, data, token);
  const { id: releaseId, trackIds } = await call<{ id: number; trackIds: number[] }>('saveRelease', {
    kind: 'single',
    title: 'First Visit Tone',
    artist: 'The Bench',
    releaseDate: '2026-01-15',
    priceCents: 100,
    published: true,
    tracks: [{ title: 'Tone', priceCents: 100 }],
  });
  const objectPath = `masters/bench/${trackIds[0]!}.wav`;
  await uploadBytesResumable(ref(createStorage({ baseUrl: app.base, getAuthToken: () => token }), objectPath), sineWav(5));
  await call('setTrackMaster', { trackId: trackIds[0]!, path: objectPath });
  for (;;) {
    const { releases } = await call<{ releases: { id: number; tracks: { encodeStatus: string; encodeError: string | null }[] }[] }>('listReleases', null);
    const track = releases.find((release) => release.id === releaseId)!.tracks[0]!;
    if (track.encodeStatus === 'ready') break;
    if (track.encodeStatus === 'failed') throw new Error(`Encoding failed: ${track.encodeError}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  console.log(`load average before: ${load()}`);
  const { figures } = await benchFirstVisits(app.base, { runs });
  console.log(`load average after: ${load()}`);
  for (const row of figures) console.log(`${row.key}\t${row.value ?? '-'} ${row.unit}\t${row.target ? `${row.target.op} ${row.target.value}` : ''}\t${row.note ?? ''}`);
} finally {
  await app.stop();
}
