#!/usr/bin/env node
// Checks a drop's fair order from its public data alone (issue 35, decision 066), and gives
// a fan's position from their entry number:
//
//   node scripts/verify-drop.mjs <shop origin> <drop address or id> [entry number]
//   node scripts/verify-drop.mjs --file fairness.json [entry number]
//
// It reads what getDropFairness publishes (entry numbers only, no personal data) and checks:
//   1. SHA-256(seed) is the commitment shown since the drop was scheduled;
//   2. SHA-256 of the pre-queue list (each number ascending, followed by "\n") is the hash
//      published at the start;
//   3. the order is the pre-queue sorted by HMAC-SHA256(key = seed, message = entry number),
//      as hex ascending; later arrivals follow in join order (position = entry number).
// It exits with 1 when a check fails.
import { createHash, createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';

const sha256 = (text) => createHash('sha256').update(text).digest('hex');
const keyOf = (seed, number) => createHmac('sha256', seed).update(String(number)).digest('hex');

async function fairnessData(args) {
  if (args[0] === '--file') return { data: JSON.parse(readFileSync(args[1], 'utf8')), rest: args.slice(2) };
  const [origin, ref, ...rest] = args;
  if (!origin || !ref) {
    console.error('usage: node scripts/verify-drop.mjs <shop origin> <drop address or id> [entry number]');
    process.exit(2);
  }
  const body = JSON.stringify({ data: /^[0-9a-f-]{36}$/.test(ref) ? { dropId: ref } : { slug: ref } });
  const response = await fetch(`${origin.replace(/\/$/, '')}/fn/getDropFairness`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  const answer = await response.json();
  if (!response.ok) throw new Error(answer.error?.message ?? `HTTP ${response.status}`);
  return { data: answer.data ?? answer, rest };
}

const { data, rest } = await fairnessData(process.argv.slice(2));
let failed = false;
const check = (ok, text) => {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${text}`);
  if (!ok) failed = true;
};

console.log(`drop ${data.slug} (${data.status}), ${data.entrants} entrants, now serving ${data.nowServing}`);
if (!data.seed) {
  console.log(`The seed is not revealed yet; its commitment is ${data.seedHash}. Run this again after the start.`);
  process.exit(0);
}
check(sha256(data.seed) === data.seedHash, `SHA-256(seed) = ${data.seedHash} (the commitment)`);
const listText = [...data.preQueue]
  .sort((a, b) => a - b)
  .map((n) => `${n}\n`)
  .join('');
check(sha256(listText) === data.entryListHash, `SHA-256(pre-queue list of ${data.preQueue.length} entries) = ${data.entryListHash}`);
const order = data.preQueue
  .map((n) => ({ n, k: keyOf(data.seed, n) }))
  .sort((a, b) => (a.k < b.k ? -1 : a.k > b.k ? 1 : a.n - b.n))
  .map((entry) => entry.n);
check(order.length === data.order.length && order.every((n, i) => n === data.order[i]), 'the published order is the pre-queue sorted by HMAC-SHA256(seed, entry number)');
check(data.inOrderShare === 1, `share of admissions that followed the order: ${data.inOrderShare}`);

if (rest[0] !== undefined) {
  const entry = Number(rest[0]);
  const preQueue = data.preQueue.length;
  const position = entry > preQueue ? entry : order.indexOf(entry) + 1;
  if (position <= 0) console.log(`entry ${entry}: not in this drop`);
  else
    console.log(
      `entry ${entry}: position ${position}${entry > preQueue ? ' (joined after the start: in join order)' : ` (pre-queue, key ${keyOf(data.seed, entry)})`}; ${position <= data.nowServing ? 'served' : `${position - data.nowServing - 1} ahead`}`,
    );
}
process.exit(failed ? 1 : 0);
