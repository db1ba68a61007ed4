import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStorage, ref } from '@storefront/sdk/storage/storage.ts';
import { uploadBytesResumable } from '@storefront/sdk/storage/upload-task.ts';
import { createAccount } from '../../src/accounts/accounts.service.ts';
import { connectDatabase, type Database } from '../../src/db/client.ts';
import { freePort, startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/db/embedded.ts';
import { runMigrations } from '../../src/db/migrate.ts';
import { probeAudio } from '../../src/digital/encoder.ts';
import { sineWav } from '../../src/digital/testing/audio.ts';
import { startTestS3Server, type TestS3Server } from '../../src/storage/testing/s3-server.ts';
import { testConfig } from '../database.ts';
import { startSmtpPeer } from '../smtp.ts';
import { newTestDataDir } from '../temp-data-dirs.ts';
import { signInAll, type Shopper } from './money-load.ts';
import { poll, spawnServer, stopAllServers, waitUntilReady, type ServerProcess } from './processes.ts';

/**
 * Digital delivery across two server processes (issue 28, "two instances with S3"): two
 * real servers on one Postgres and one S3 store (s3rver). A master uploaded through one is
 * encoded once by the job on whichever instance takes it; a link signed by one downloads
 * through the other and the file decodes; an encoding that fails because the store refuses
 * writes is retried by the queue and ends Ready with one set of files.
 */
const dataDir = newTestDataDir('digital-processes');
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'digital-processes-'));
let cluster: EmbeddedDatabase;
let database: Database;
let s3: TestS3Server;
let smtp: Awaited<ReturnType<typeof startSmtpPeer>>;
let servers: ServerProcess[];
let label: Shopper;
let fan: Shopper;

beforeAll(async () => {
  cluster = await startEmbeddedPostgres({ dataDir, ephemeral: true });
  database = connectDatabase(cluster.connectionString, { max: 4 });
  await runMigrations(database.pool);
  for (const [name, role] of [
    ['label', 'admin'],
    ['fan', 'user'],
  ] as const) {
    await createAccount(
      database.db,
      testConfig(),
      { email: `${name}@example.org`, username: name, name, password: 'pass words', confirmPassword: 'pass words', acceptedTerms: true },
      { emailVerified: true, role, allowReservedUsername: true },
    );
  }
  s3 = await startTestS3Server({ prefix: 'digital' });
  smtp = await startSmtpPeer();
  const ports = [await freePort(), await freePort()];
  const publicUrl = `http://127.0.0.1:${ports[0]}`;
  const settings = {
    NODE_ENV: 'production',
    PAYMENT_PROVIDER: 'local',
    ALLOW_TEST_PAYMENTS: '1',
    DATABASE_URL: cluster.connectionString,
    PUBLIC_URL: publicUrl,
    AUTH_SECRET: 'digital-processes-secret-'.repeat(3),
    SMTP_URL: smtp.url,
    TRUSTED_PROXIES: '127.0.0.1',
    ...s3.env,
  };
  servers = await Promise.all(ports.map((port, index) => spawnServer({ ...settings, DATA_DIR: path.join(dataDir, `instance-${index}`) }, port)));
  await Promise.all(servers.map(waitUntilReady));
  const signedIn = await signInAll(servers[0]!.base, publicUrl, ['label@example.org', 'fan@example.org']);
  label = signedIn[0]!;
  fan = signedIn[1]!;
}, 240_000);

afterAll(async () => {
  await stopAllServers();
  await smtp?.close();
  await s3?.close();
  await database?.close();
  await cluster?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
  fs.rmSync(scratch, { recursive: true, force: true });
}, 120_000);

async function call<T>(server: ServerProcess, who: Shopper, name: string, data: unknown): Promise<T> {
  const response = await fetch(`${server.base}/fn/${name}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${who.token}`, 'x-forwarded-for': who.ip },
    body: JSON.stringify({ data }),
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${name} answered ${response.status}: ${text}`);
  return (JSON.parse(text) as { data: T }).data;
}

interface TrackRow {
  encode_status: string;
  encode_attempts: number;
  encode_done: number;
  master_generation: number;
}

async function track(trackId: number): Promise<TrackRow> {
  const { rows } = await database.pool.query<TrackRow>('SELECT encode_status, encode_attempts, encode_done, master_generation FROM release_track WHERE id = $1', [trackId]);
  return rows[0]!;
}

/** A release of one track whose master goes up through instance A and is attached there. */
async function releaseWithMaster(title: string, seconds: number): Promise<{ releaseId: number; trackId: number }> {
  const [a] = servers;
  const { id: releaseId, trackIds } = await call<{ id: number; trackIds: number[] }>(a!, label, 'saveRelease', {
    kind: 'single',
    title,
    artist: 'Two Hosts',
    releaseDate: '2026-01-15',
    priceCents: 300,
    published: true,
    previewSeconds: 5,
    tracks: [{ title, isrc: 'USSFR2699001', priceCents: 100 }],
  });
  const trackId = trackIds[0]!;
  const objectPath = `masters/${releaseId}/${trackId}.wav`;
  const storage = createStorage({ baseUrl: a!.base, getAuthToken: () => label.token });
  await uploadBytesResumable(ref(storage, objectPath), sineWav(seconds));
  await call(a!, label, 'setTrackMaster', { trackId, path: objectPath });
  return { releaseId, trackId };
}

const waitForStatus = (trackId: number, status: string, timeoutMs = 120_000) =>
  poll(
    `track ${trackId} to be ${status}`,
    async () => {
      const row = await track(trackId);
      return row.encode_status === status ? row : undefined;
    },
    { timeoutMs, intervalMs: 200, stopIf: () => servers.map((s) => (s.child.exitCode !== null ? `a server exited:\n${s.output()}` : '')).find(Boolean) },
  );

const encodedPuts = (trackId: number) => s3.requests.filter((request) => request.startsWith('PUT ') && request.includes(`/digital/${trackId}/`));

describe('digital delivery across two server processes on one S3 store', () => {
  it('encodes a master uploaded through one instance exactly once, and a link signed by one downloads through the other', async () => {
    const [a, b] = servers;
    const { releaseId, trackId } = await releaseWithMaster('Across', 2);
    const ready = await waitForStatus(trackId, 'ready');
    // Claimed once, six formats made once: one set of objects, each written once.
    expect(ready).toMatchObject({ encode_attempts: 1, encode_done: 6 });
    const keys = await s3.keys(`digital/digital/${trackId}/`);
    expect(keys).toHaveLength(6);
    expect(keys.every((key) => key.startsWith(`digital/digital/${trackId}/${ready.master_generation}/`))).toBe(true);
    expect(encodedPuts(trackId)).toHaveLength(6);
    const { rows } = await database.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM track_file WHERE track_id = $1', [trackId]);
    expect(rows[0]!.n).toBe(6);

    // The console on the other instance shows the same progress.
    const { releases } = await call<{ releases: { id: number; tracks: { encodeStatus: string; encodeDone: number }[] }[] }>(b!, label, 'listReleases', null);
    expect(releases.find((release) => release.id === releaseId)!.tracks).toMatchObject([{ encodeStatus: 'ready', encodeDone: 6 }]);

    const { codes } = await call<{ codes: string[] }>(a!, label, 'createDownloadCodes', { releaseId, count: 1 });
    await call(b!, fan, 'redeemDownloadCode', { code: codes[0] });
    const { url } = await call<{ url: string }>(a!, fan, 'createDownloadLink', { releaseId, trackId, format: 'flac' });
    const download = await fetch(`${b!.base}${url}`);
    expect(download.status).toBe(200);
    const file = path.join(scratch, 'across.flac');
    fs.writeFileSync(file, Buffer.from(await download.arrayBuffer()));
    const probe = await probeAudio(file);
    expect(probe).toMatchObject({ codec: 'flac', tags: { title: 'Across', artist: 'Two Hosts' } });
    expect(probe.durationSeconds).toBeCloseTo(2, 0);
  });

  it('retries an encoding that failed because the store refused its files, and ends Ready with one set of files', async () => {
    // Every write of an encoded file fails (the SDK's own retries too): the job's first attempt fails.
    s3.failPuts(/\/digital\/digital\//);
    const { trackId } = await releaseWithMaster('Retried', 1);
    const failed = await poll(
      'the first attempt to fail',
      async () => {
        const row = await track(trackId);
        return row.encode_attempts >= 1 && row.encode_status === 'queued' ? row : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 100 },
    );
    expect(failed.encode_done).toBe(0);
    const { rows: errors } = await database.pool.query<{ encode_error: string | null }>('SELECT encode_error FROM release_track WHERE id = $1', [trackId]);
    expect(errors[0]!.encode_error).toBeTruthy();
    s3.failPuts();

    const ready = await waitForStatus(trackId, 'ready');
    expect(ready.encode_done).toBe(6);
    expect(ready.encode_attempts).toBeGreaterThanOrEqual(2);
    const keys = await s3.keys(`digital/digital/${trackId}/`);
    expect(keys).toHaveLength(6);
    const { rows } = await database.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM track_file WHERE track_id = $1', [trackId]);
    expect(rows[0]!.n).toBe(6);
    // The job then completes (the handler returns after the row says Ready) and nothing more is queued for the track.
    await poll(
      'the encode job to complete',
      async () => {
        const { rows: pending } = await database.pool.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'encode-track' AND (data->>'trackId')::int = $1 AND state <> 'completed'`,
          [trackId],
        );
        return pending[0]!.n === 0 ? true : undefined;
      },
      { timeoutMs: 30_000 },
    );
    expect(await track(trackId)).toMatchObject({ encode_status: 'ready', encode_attempts: ready.encode_attempts });
  });

  it('retries the encoding of an instance killed in the middle of it on the other, ending Ready with one set of files', async () => {
    const { trackId } = await releaseWithMaster('Killed', 20);
    // The instance running ffmpeg for the track once a format is done: the one to kill.
    const victim = await poll(
      'an instance to be encoding',
      async () => {
        const row = await track(trackId);
        if (row.encode_status !== 'encoding' || row.encode_done < 1 || row.encode_done > 4) return undefined;
        return servers.find((server) => encoderChildren(server).length > 0);
      },
      { timeoutMs: 120_000, intervalMs: 50 },
    );
    const orphans = encoderChildren(victim);
    victim.child.kill('SIGKILL');
    await victim.exited;
    for (const pid of orphans) killQuietly(pid);
    const survivor = servers.find((server) => server !== victim)!;
    const killed = await track(trackId);
    expect(killed.encode_status).toBe('encoding');

    // The job stays active until its expiry (15 minutes): the queue's clock is moved past it,
    // as if that time had passed, and the survivor's supervisor hands the job out again.
    const { rowCount } = await database.pool.query(
      `UPDATE pgboss.job SET started_on = started_on - (expire_seconds + 1) * interval '1s'
        WHERE name = 'encode-track' AND state = 'active' AND (data->>'trackId')::int = $1`,
      [trackId],
    );
    expect(rowCount).toBe(1);
    const ready = await waitForStatus(trackId, 'ready', 240_000);
    expect(ready).toMatchObject({ encode_done: 6, encode_attempts: 2 });
    expect(await s3.keys(`digital/digital/${trackId}/`)).toHaveLength(6);
    const { rows } = await database.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM track_file WHERE track_id = $1', [trackId]);
    expect(rows[0]!.n).toBe(6);
    expect(survivor.child.exitCode).toBeNull();
  });
});

/** The encoder processes (ffmpeg, ffprobe) a server process started, from /proc. */
function encoderChildren(server: ServerProcess): number[] {
  const pids: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      // pid (comm) state ppid ...
      const match = /^\d+ \((.*)\) \S (\d+)/.exec(stat);
      if (match && Number(match[2]) === server.child.pid && /^ff(mpeg|probe)/.test(match[1]!)) pids.push(Number(entry));
    } catch {
      // The process ended while being read.
    }
  }
  return pids;
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}
