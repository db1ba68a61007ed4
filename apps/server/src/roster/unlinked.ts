import type { Db } from '../db/client.ts';
import { listReleaseCredits } from '../digital/releases.service.ts';
import { creditedReleaseIds } from './roster.service.ts';

/** Releases no artist is credited on, with the credit they carry: what the migration could not match, and any release added since. */
export async function unlinkedReleases(db: Db): Promise<{ id: number; title: string; artist: string }[]> {
  const credited = await creditedReleaseIds(db);
  return (await listReleaseCredits(db)).filter((release) => !credited.has(release.id));
}

/** The CLI's report (`npm run cli -- roster-unlinked`): one line a release, or a sentence saying there is none. */
export async function unlinkedReport(db: Db): Promise<string> {
  const releases = await unlinkedReleases(db);
  if (releases.length === 0) return 'Every release is credited to a roster artist.';
  const lines = releases.map((release) => `  release ${release.id}  ${release.title}  (credited as "${release.artist}")`);
  return [
    `${releases.length} ${releases.length === 1 ? 'release is' : 'releases are'} credited to no roster artist; link them in the console's Roster tab (/release/roster):`,
    ...lines,
  ].join('\n');
}
