import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * DATA_DIRs of test clusters live under the system temp dir with one prefix, so a run
 * that was killed before its teardown (Ctrl-C twice, a CI timeout) is cleaned up by the
 * next one: its folder removed and a postgres it left running stopped.
 */
const PREFIX = 'storefront-test-';

/** A path for a new test DATA_DIR, not yet created. */
export function newTestDataDir(purpose: string): string {
  // Not mkdtemp: its 0700 folder would keep out the `postgres` user that runs the server as root.
  return path.join(os.tmpdir(), `${PREFIX}${purpose}-${randomBytes(6).toString('hex')}`);
}

function readPid(file: string): number | undefined {
  try {
    const pid = Number(fs.readFileSync(file, 'utf8').split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function isAlive(pid: number | undefined): boolean {
  if (pid === undefined) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function removeAbandonedTestDataDirs(): void {
  const tmp = os.tmpdir();
  for (const name of fs.readdirSync(tmp)) {
    if (!name.startsWith(PREFIX)) continue;
    const dir = path.join(tmp, name);
    const holder = readPid(path.join(dir, 'server.lock'));
    if (isAlive(holder)) continue; // another run is using it
    // No lock yet: maybe a run that is just starting. Leave young folders alone.
    if (holder === undefined && Date.now() - fs.statSync(dir).mtimeMs < 10 * 60_000) continue;
    const postmaster = readPid(path.join(dir, 'pg', 'postmaster.pid'));
    if (isAlive(postmaster)) {
      process.kill(postmaster!, 'SIGINT'); // its owner died; the folder goes next time
      continue;
    }
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
