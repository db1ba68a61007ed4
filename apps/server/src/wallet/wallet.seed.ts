import { eq } from 'drizzle-orm';
import { DEMO_SHOPPER } from '../accounts/accounts.seed.ts';
import { users } from '../db/schema/index.ts';
import type { Seeder } from '../seed/seed.ts';
import { applyServiceWrite } from '../service/service.writes.ts';

/** Demo token-economy figures for the demo shopper, written as a sister product would. */
const DEMO_DATS = [
  { songName: 'Two Dollar Dreams', artistName: 'Saint Vinyl' },
  { songName: 'Night Bus Home', artistName: 'Saint Vinyl' },
  { songName: 'Velvet Rope', artistName: 'The Lowlight Choir' },
  { songName: 'Pressure Makes Diamonds', artistName: 'Saint Vinyl' },
];

export const walletSeeder: Seeder = {
  name: 'wallet',
  async run(db) {
    const [shopper] = await db.select({ id: users.id }).from(users).where(eq(users.email, DEMO_SHOPPER.email));
    if (!shopper) return;
    const who = { userId: shopper.id };
    const write = (kind: Parameters<typeof applyServiceWrite>[2], body: object) => applyServiceWrite(db, 'seed', kind, body);
    await write('metrics', { externalId: 'seed:metrics', utilitySoldCents: 1_250_000_000, poolCents: 0, circulating: 250_000 });
    await write('utility-spend', { externalId: 'seed:spend', ...who, addCents: 120_000, awarded: 2 });
    await write('credit-strings', { externalId: 'seed:credits', ...who, currentCredits: '1,250', earnedCredits: '340', streamEarningsCents: 48_000, salesEarningsCents: 12_500 });
    await write('reward-tokens', { externalId: 'seed:rewards', ...who, qty: 42 });
    for (const [index, song] of DEMO_DATS.entries()) {
      const i = index + 1;
      await write('dats', {
        externalId: `seed:dat:${i}`,
        ...who,
        asset: {
          id: `dat-sample-${i}`,
          creatorId: 'sample-creator',
          creatorUsername: 'streetflavor',
          songName: song.songName,
          artistName: song.artistName,
          artworkUrl: `/content/covers/cover-0${i}.svg`,
          releasedAt: new Date(Date.UTC(2026, i, 1)).toISOString(),
        },
        edition: i * 3,
        royaltiesCents: 250 * i,
        earningsCents: 1_000 * i,
      });
    }
  },
};
