import { createChallenge, extractParams, verifySolution } from 'altcha-lib/v1';
import { challengeKey } from './drop-tokens.ts';

/**
 * The join's proof-of-work (decision 066): altcha-lib's challenge, signed with a key derived
 * from AUTH_SECRET, bound to the drop by its parameters and valid for CHALLENGE_TTL_MS. The
 * client (the altcha widget, or altcha-lib's solver) finds the number; the server verifies.
 */
export const CHALLENGE_TTL_MS = 5 * 60 * 1000;

export async function makeChallenge(secret: string, dropId: string, cost: number) {
  const challenge = await createChallenge({
    hmacKey: challengeKey(secret),
    maxnumber: Math.max(1, cost),
    expires: new Date(Date.now() + CHALLENGE_TTL_MS),
    params: { drop: dropId },
  });
  return { algorithm: challenge.algorithm, challenge: challenge.challenge, maxnumber: challenge.maxnumber, salt: challenge.salt, signature: challenge.signature };
}

/** The solved challenge's signature (its one-use key) when it is valid for this drop; null otherwise. */
export async function checkSolution(secrets: readonly string[], dropId: string, payload: string): Promise<{ signature: string; expiresAt: Date } | null> {
  let parsed: { signature?: unknown; salt?: unknown };
  try {
    parsed = JSON.parse(Buffer.from(payload, 'base64').toString('utf8')) as typeof parsed;
  } catch {
    return null;
  }
  if (typeof parsed.signature !== 'string' || typeof parsed.salt !== 'string') return null;
  const params = extractParams(payload);
  if (params.drop !== dropId) return null;
  let valid = false;
  for (const secret of secrets) if (!valid) valid = await verifySolution(payload, challengeKey(secret), true).catch(() => false);
  if (!valid) return null;
  const expires = Number(params.expires);
  return { signature: parsed.signature, expiresAt: new Date(Number.isFinite(expires) ? expires * 1000 : Date.now() + CHALLENGE_TTL_MS) };
}
