import type pg from 'pg';

/**
 * Followers in bulk for the announcement tests and the bench (decision 079): `count` accounts
 * `<prefix><n>@example.org` (n from 1), each following the label (artistId null) or an artist, with
 * marketing consent given when `consent`. Written in three statements, however many.
 */
export async function seedFollowers(pool: pg.Pool, options: { prefix: string; count: number; artistId?: number | null; consent?: boolean }): Promise<string[]> {
  const { prefix, count } = options;
  await pool.query(
    `INSERT INTO "user" (id, name, email, email_verified, username, username_lower)
     SELECT 'u-' || $1 || g, 'Fan ' || g, $1 || g || '@example.org', true, $1 || g, $1 || g FROM generate_series(1, $2::int) g`,
    [prefix, count],
  );
  await pool.query(
    `INSERT INTO fan_follow (user_id, artist_id, source)
     SELECT 'u-' || $1 || g, $3::int, 'button' FROM generate_series(1, $2::int) g`,
    [prefix, count, options.artistId ?? null],
  );
  if (options.consent !== false) {
    await pool.query(
      `INSERT INTO marketing_consent (email, user_id, status, source, page, given_at)
       SELECT $1 || g || '@example.org', 'u-' || $1 || g, 'given', 'account', '/account', now() FROM generate_series(1, $2::int) g`,
      [prefix, count],
    );
  }
  return Array.from({ length: count }, (_, i) => `${prefix}${i + 1}@example.org`);
}

/** A roster artist made directly (the console's saveArtist does the same row); its id. */
export async function seedArtist(pool: pg.Pool, name: string): Promise<number> {
  const slug = name.toLowerCase().replace(/[^a-z0-9]+/g, '-');
  const { rows } = await pool.query<{ id: number }>('INSERT INTO artist (name, slug) VALUES ($1, $2) RETURNING id', [name, slug]);
  return rows[0]!.id;
}
