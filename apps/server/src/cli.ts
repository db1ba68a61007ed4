import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import readline from 'node:readline/promises';
import { makeAdmin } from './accounts/accounts.service.ts';
import { createServiceToken, revokeServiceToken } from './service/service.tokens.ts';
import { publicUrl } from './accounts/auth.ts';
import { createOAuthClient, redirectUriSchema, revokeOAuthClient } from './oidc/oidc.clients.ts';
import { OIDC_MOUNT, sealKeyFor } from './oidc/oidc.provider.ts';
import { grantCredits } from './wallet/wallet.commands.ts';
import { AppError } from './http/errors.ts';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { connectDatabase, type Database } from './db/client.ts';
import { runningEmbeddedConnection, startEmbeddedPostgres } from './db/embedded.ts';
import { runMigrations } from './db/migrate.ts';
import { backupDatabase, readBackupHeader, restoreDatabase } from './db/backup.ts';
import { startJobQueue } from './jobs/queue.ts';

/**
 * `npm run cli -- <command> [args]`: operator commands. Each area adds its commands
 * to `commands`; they get a migrated database (the running server's embedded cluster,
 * a new embedded cluster on DATA_DIR, or DATABASE_URL).
 */
export interface CliCommand {
  usage: string;
  summary: string;
  run(args: string[], context: { db: Database['db']; config: Config }): Promise<string>;
}

export class UsageError extends Error {}

export const commands: Record<string, CliCommand> = {
  migrate: {
    usage: 'migrate',
    summary: 'apply the database migrations (the server also does this at start)',
    run: async () => 'Migrations applied.',
  },
  'make-admin': {
    usage: 'make-admin <email>',
    summary: 'make the account with this email an admin',
    async run([email], { db }) {
      if (!email) throw new UsageError('Usage: npm run cli -- make-admin <email>');
      if (!(await makeAdmin(db, email))) throw new UsageError(`No account has the email ${email}.`);
      return `${email} is now an admin.`;
    },
  },
  'grant-credits': {
    usage: 'grant-credits <email> <usd>',
    summary: 'add wallet credit (USD) to an account, through the ledger',
    async run([email, usd], { db }) {
      if (!email || !usd) throw new UsageError('Usage: npm run cli -- grant-credits <email> <usd>');
      const result = await grantCredits(db, email, usd);
      return `Granted $${(result.cents / 100).toFixed(2)} to ${email}; balance now $${(result.balance.balanceCents / 100).toFixed(2)}.`;
    },
  },
  'create-service-token': {
    usage: 'create-service-token <name>',
    summary: 'make a token for a sister product to call /api/service (shown once)',
    async run([name], { db }) {
      if (!name) throw new UsageError('Usage: npm run cli -- create-service-token <name>');
      const { id, token } = await createServiceToken(db, name);
      return `Service token ${id} for ${name} (keep it secret; it is shown only now):\n${token}`;
    },
  },
  'revoke-service-token': {
    usage: 'revoke-service-token <id>',
    summary: 'revoke a service token at once',
    async run([id], { db }) {
      if (!id) throw new UsageError('Usage: npm run cli -- revoke-service-token <id>');
      if (!(await revokeServiceToken(db, id))) throw new UsageError(`No live service token has the id ${id}.`);
      return `Service token ${id} revoked.`;
    },
  },
  'create-oauth-client': {
    usage: 'create-oauth-client <name> <redirect-uri>',
    summary: 'register a sister product for single sign-on (secret shown once)',
    async run([name, ...redirectUris], { db, config }) {
      if (!name || redirectUris.length === 0) throw new UsageError('Usage: npm run cli -- create-oauth-client <name> <redirect-uri> [more redirect URIs]');
      const parsed = redirectUris.map((uri) => redirectUriSchema.safeParse(uri));
      const refused = parsed.find((result) => !result.success);
      if (refused && !refused.success) throw new UsageError(refused.error.issues[0]!.message);
      const client = await createOAuthClient(db, sealKeyFor(config.AUTH_SECRET), { name, redirectUris });
      const issuer = `${publicUrl(config)}${OIDC_MOUNT}`;
      return [
        `Single sign-on client for ${client.name} (keep the secret; it is shown only now):`,
        `  client_id:     ${client.clientId}`,
        `  client_secret: ${client.clientSecret}`,
        `  issuer:        ${issuer}  (discovery: ${issuer}/.well-known/openid-configuration)`,
        `  redirect URIs: ${client.redirectUris.join(' ')}`,
      ].join('\n');
    },
  },
  'revoke-oauth-client': {
    usage: 'revoke-oauth-client <client-id>',
    summary: 'stop a single sign-on client at once',
    async run([clientId], { db }) {
      if (!clientId) throw new UsageError('Usage: npm run cli -- revoke-oauth-client <client-id>');
      if (!(await revokeOAuthClient(db, clientId))) throw new UsageError(`No live single sign-on client has the id ${clientId}.`);
      return `Single sign-on client ${clientId} revoked.`;
    },
  },
  backup: {
    usage: 'backup <file>',
    summary: 'write a consistent snapshot of the whole database to a file',
    async run([file], { db }) {
      if (!file) throw new UsageError('Usage: npm run cli -- backup <file>');
      const { tables, rows, bytes } = await backupDatabase(db.$client, path.resolve(file));
      return `Backed up ${rows} rows of ${tables} tables to ${path.resolve(file)} (${(bytes / 1024).toFixed(1)} KiB).`;
    },
  },
  restore: {
    usage: 'restore <file> [--yes]',
    summary: 'REPLACE all data in the database with a backup (one transaction)',
    async run(args, { db, config }) {
      const file = args.find((arg) => arg !== '--yes');
      if (!file) throw new UsageError('Usage: npm run cli -- restore <file> [--yes]');
      const header = await readBackupHeader(path.resolve(file));
      // At a terminal, a person confirms; scripts (no terminal) or --yes go straight on.
      if (process.stdin.isTTY && !args.includes('--yes')) {
        const target = config.DATABASE_URL ? 'the database at DATABASE_URL' : `the embedded database in ${config.dataDir}`;
        const prompt = readline.createInterface({ input: process.stdin, output: process.stdout });
        const answer = await prompt.question(`This replaces ALL data in ${target} with the backup taken ${header.createdAt}.\nType "restore" to go on: `);
        prompt.close();
        if (answer.trim() !== 'restore') return 'Nothing was restored.';
      }
      // pg-boss's tables must exist for the backup's pending jobs to go back in.
      const jobs = await startJobQueue(db.$client, () => undefined);
      await jobs.stop();
      const result = await restoreDatabase(db.$client, path.resolve(file));
      const pending = result.jobs === 'skipped' ? 'no pending jobs (the backup has none of this job queue version)' : `${result.jobs} pending jobs`;
      return `Restored ${path.resolve(file)} (taken ${result.takenAt}): every earlier row was replaced by ${result.rows} rows in ${result.tables} tables, and ${pending}.`;
    },
  },
};

async function withDatabase<T>(config: Config, fn: (database: Database) => Promise<T>): Promise<T> {
  const running = config.DATABASE_URL ? undefined : runningEmbeddedConnection(config.dataDir);
  const embedded = config.DATABASE_URL || running ? null : await startEmbeddedPostgres({ dataDir: config.dataDir });
  const database = connectDatabase(config.DATABASE_URL ?? running ?? embedded!.connectionString, { max: 2 });
  try {
    await runMigrations(database.pool);
    return await fn(database);
  } finally {
    await database.close();
    await embedded?.stop();
  }
}

function help(): string {
  const lines = Object.values(commands).map((command) => `  ${command.usage.padEnd(38)} ${command.summary}`);
  return `Usage: npm run cli -- <command>\n\nCommands:\n${lines.join('\n')}`;
}

async function main(argv: string[]) {
  const [name, ...args] = argv;
  const command = name ? commands[name] : undefined;
  if (!command) {
    console.log(help());
    process.exit(name && name !== 'help' ? 2 : 0);
  }
  const config = loadConfig();
  const output = await withDatabase(config, ({ db }) => command.run(args, { db, config }));
  console.log(output);
}

// Run only as the program (`npm run cli`), not when a test imports the commands.
const isProgram = process.argv[1] !== undefined && fs.realpathSync(process.argv[1]) === fileURLToPath(import.meta.url);
if (isProgram) main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof UsageError || error instanceof ConfigError || error instanceof AppError) console.error(error.message);
  else console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
