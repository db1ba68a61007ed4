import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline/promises';
import { authSecretFile, type Config, storedAuthSecret } from './config.ts';
import { SERVER_APPLICATION_NAME, type Database } from './db/client.ts';
import { backupDatabase, secretFingerprint } from './db/backup.ts';
import { readBackupHeader, restoreDatabase, type BackupHeader } from './db/restore.ts';
import { startJobQueue } from './jobs/queue.ts';

import { localStorageDir, UsageError, type CliCommand, type DatabaseTarget } from './cli-command.ts';

/** AUTH_SECRET comes from DATA_DIR's file (embedded default) rather than the environment. */
function secretIsStored(config: Config): boolean {
  return !config.AUTH_SECRET || config.AUTH_SECRET === storedAuthSecret(config.dataDir);
}

/** Servers of this shop with connections open on the database (pg_stat_activity). */
async function liveServerConnections(db: Database['db']): Promise<{ count: number; from: string }> {
  const { rows } = await db.$client.query<{ count: number; from: string | null }>(
    `SELECT count(*)::int AS count, string_agg(DISTINCT coalesce(host(client_addr), 'local socket'), ', ') AS from
     FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1 AND pid <> pg_backend_pid()`,
    [SERVER_APPLICATION_NAME],
  );
  return { count: rows[0]!.count, from: rows[0]!.from ?? '' };
}

function restorePlan(file: string, header: BackupHeader, config: Config, target: DatabaseTarget): string[] {
  const storageDir = localStorageDir(config);
  const lines = [
    `Restore ${file} (taken ${header.createdAt}, PostgreSQL ${header.serverVersion}) into ${target.description}:`,
    "  - the database: ALL its rows are replaced by the backup's, in one transaction (a damaged file changes nothing);",
  ];
  if (header.objects === 'local' && storageDir) {
    lines.push(`  - stored files (images, variants, uploads): the backup's replace ${storageDir}; the files there now are moved aside to ${storageDir}.before-restore-<time>;`);
  } else if (header.objects === 'local') {
    lines.push('  - stored files: NOT restored: this shop keeps objects in an object store (STORAGE_URL); restore the bucket from its own backup;');
  } else if (header.objects === 'external') {
    lines.push('  - stored files: not in this backup (they were in an object store): restore the bucket from its own backup;');
  } else {
    lines.push('  - stored files: not in this backup (made before backups held them): copy DATA_DIR/storage back yourself;');
  }
  const storedSecret = secretIsStored(config);
  if (header.authSecret && storedSecret) {
    lines.push(`  - AUTH_SECRET: the backup's, written to ${authSecretFile(config.dataDir)}, so sessions and single sign-on secrets stay valid.`);
  } else if (header.authSecretFingerprint && config.AUTH_SECRET && secretFingerprint(config.AUTH_SECRET) === header.authSecretFingerprint) {
    lines.push('  - AUTH_SECRET: unchanged (the same secret as when the backup was taken).');
  } else if (header.authSecretFingerprint) {
    lines.push(
      "  - AUTH_SECRET: WARNING: this shop's AUTH_SECRET is not the one the backup was taken with: every session ends and single sign-on client secrets cannot be read. Set AUTH_SECRET to the old value first to keep them.",
    );
  } else {
    lines.push('  - AUTH_SECRET: the backup does not say which secret it was taken with: keep AUTH_SECRET as it was.');
  }
  return lines;
}

/** `backup` and `restore` (decisions on backups in docs/operations.md): the database and its stored files. */
export const backupCommands: Record<string, CliCommand> = {
  backup: {
    usage: 'backup <file>',
    summary: 'write a consistent snapshot of the database, the stored files and AUTH_SECRET (if kept in DATA_DIR) to a file',
    async run([file], { db, config }) {
      if (!file) throw new UsageError('Usage: npm run cli -- backup <file>');
      const target = path.resolve(file);
      const storageDir = localStorageDir(config);
      const stored = secretIsStored(config);
      const summary = await backupDatabase(db.$client, target, { storageDir, authSecret: { value: config.AUTH_SECRET, stored } });
      const objects = summary.objects
        ? `${summary.objects.count} stored files (${(summary.objects.bytes / 1024).toFixed(1)} KiB) from ${storageDir}`
        : 'no stored files: they are in the object store (STORAGE_URL); back up the bucket itself';
      return [
        `Backed up ${summary.rows} rows of ${summary.tables} tables to ${target} (${(summary.bytes / 1024).toFixed(1)} KiB).`,
        `  files:       ${objects}`,
        `  AUTH_SECRET: ${stored && config.AUTH_SECRET ? `the one kept in ${authSecretFile(config.dataDir)} is in the backup` : 'set in the environment: not in the backup; keep it with the environment file'}`,
        '  Keep a copy of the environment settings too (DATABASE_URL, PUBLIC_URL, SMTP_URL, STRIPE_*, ADMIN_EMAILS, ...).',
        '  The file holds password hashes and secrets: keep it as safe as the database.',
      ].join('\n');
    },
  },
  restore: {
    usage: 'restore <file> [--yes]',
    summary: 'REPLACE the database and stored files with a backup (stop the servers first)',
    createsDatabase: true,
    precheck(_args, _config, target) {
      if (target.kind === 'running-embedded') {
        throw new UsageError(
          `A storefront server (pid ${target.serverPid}) is running on this DATA_DIR. Nothing was restored: stop the server first (for example \`systemctl stop storefront\`), then run the restore again.`,
        );
      }
    },
    async run(args, { db, config, target, say = console.log }) {
      const file = args.find((arg) => arg !== '--yes');
      if (!file) throw new UsageError('Usage: npm run cli -- restore <file> [--yes]');
      const source = path.resolve(file);
      const header = await readBackupHeader(source);
      const where: DatabaseTarget = target ?? { kind: 'external', description: 'the database' };
      const live = await liveServerConnections(db);
      if (live.count > 0) {
        throw new UsageError(
          `A storefront server is using this database (${live.count} connections, from ${live.from}). Nothing was restored: stop every server of the shop first, then run the restore again.`,
        );
      }
      say(restorePlan(source, header, config, where).join('\n'));
      if (!args.includes('--yes')) {
        // At a terminal a person confirms; a script must say --yes.
        if (!process.stdin.isTTY) throw new UsageError('Nothing was restored: run again with --yes to go on.');
        const prompt = readline.createInterface({ input: process.stdin, output: process.stdout });
        const answer = await prompt.question('Type "restore" to go on: ');
        prompt.close();
        if (answer.trim() !== 'restore') return 'Nothing was restored.';
      }
      // pg-boss's tables must exist for the backup's pending jobs to go back in.
      const jobs = await startJobQueue(db.$client, () => undefined);
      await jobs.stop();

      const storageDir = localStorageDir(config);
      const staging = storageDir && header.objects === 'local' ? `${storageDir}.restoring` : undefined;
      if (staging) {
        fs.rmSync(staging, { recursive: true, force: true });
        fs.mkdirSync(staging, { recursive: true, mode: 0o700 });
      }
      let result;
      try {
        result = await restoreDatabase(db.$client, source, staging ? { objectsDir: staging } : {});
      } catch (error) {
        if (staging) fs.rmSync(staging, { recursive: true, force: true });
        throw error;
      }
      const lines = [];
      // A count, never the jobs themselves: a shop restored after an outage may have thousands.
      const pending =
        result.jobs === 'skipped'
          ? 'no pending jobs (the backup has none of this job queue version)'
          : `${result.jobs} pending jobs (to run now)${result.jobHistory > 0 ? ` and ${result.jobHistory} finished ones kept as history` : ''}`;
      lines.push(`Restored ${source} (taken ${result.takenAt}): every earlier row was replaced by ${result.rows} rows in ${result.tables} tables, and ${pending}.`);
      if (staging && storageDir && result.objects) {
        let aside = '';
        if (fs.existsSync(storageDir)) {
          aside = `${storageDir}.before-restore-${new Date().toISOString().replace(/[:.]/g, '-')}`;
          fs.renameSync(storageDir, aside);
        }
        fs.renameSync(staging, storageDir);
        lines.push(
          `Restored ${result.objects.count} stored files (${(result.objects.bytes / 1024).toFixed(1)} KiB) into ${storageDir}.${aside ? ` The files that were there are in ${aside}; delete that folder once the shop looks right.` : ''}`,
        );
      }
      if (header.authSecret && secretIsStored(config)) {
        fs.mkdirSync(config.dataDir, { recursive: true });
        fs.writeFileSync(authSecretFile(config.dataDir), header.authSecret, { mode: 0o600 });
        lines.push(`AUTH_SECRET: the backup's is in ${authSecretFile(config.dataDir)}; sessions stay valid.`);
      }
      return lines.join('\n');
    },
  },
};
