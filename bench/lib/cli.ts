import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { root, type AppServer } from './app-server.ts';

const run = promisify(execFile);

/** `npm run cli -- <args>` against the running server's DATA_DIR (it finds the live cluster). */
export async function shopCli(app: AppServer, args: string[]): Promise<string> {
  const { stdout } = await run('npm', ['run', '--silent', 'cli', '--', ...args], {
    cwd: root,
    env: { ...process.env, DATA_DIR: app.dataDir, LOG_LEVEL: 'warn' },
  });
  return stdout.trim();
}
