import type { FunctionOutput } from '@storefront/domain/contracts/index.ts';

type Challenge = FunctionOutput<'getDropChallenge'>;

/**
 * Solves the drop's proof-of-work (altcha's format, decision 066) in Web Workers and returns the
 * payload joinDrop verifies: base64 of { algorithm, challenge, number, salt, signature }. The
 * solver is loaded on the first Join only, so the drop page's first load does not carry it.
 */
export async function solveDropChallenge(challenge: Challenge): Promise<string> {
  const { solveChallengeWorkers } = await import('altcha-lib/v1');
  const concurrency = Math.max(1, Math.min(4, navigator.hardwareConcurrency || 1));
  const solution = await solveChallengeWorkers(
    () => new Worker(new URL('./proof-of-work-worker.ts', import.meta.url), { type: 'module' }),
    concurrency,
    challenge.challenge,
    challenge.salt,
    challenge.algorithm,
    challenge.maxnumber,
  );
  if (!solution) throw new Error('The check that you are not a bot could not be solved. Please try again.');
  const payload = { algorithm: challenge.algorithm, challenge: challenge.challenge, number: solution.number, salt: challenge.salt, signature: challenge.signature };
  return btoa(JSON.stringify(payload));
}
