import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import readline from 'node:readline/promises';
import { makeAdmin } from './accounts/accounts.service.ts';
import { createLabelAccount } from './accounts/label-accounts.ts';
import { createServiceToken, revokeServiceToken } from './service/service.tokens.ts';
import { authSecretFile, type Config, ConfigError, developmentSecret, loadConfig, publicUrl, storedAuthSecret } from './config.ts';
import { backchannelLogoutUriSchema, createOAuthClient, EXCHANGE_SCOPES, redirectUriSchema, revokeOAuthClient, type ExchangeScope } from './oidc/oidc.clients.ts';
import { OIDC_MOUNT, sealKeyFor } from './oidc/oidc.provider.ts';
import { resealOidcSecrets } from './oidc/reseal.service.ts';
import { collectOrphans, ORPHAN_GRACE_HOURS_MINIMUM } from './storage/orphans.service.ts';
import { createStorageDeps } from './storage/storage.service.ts';
import { grantCredits } from './wallet/wallet.commands.ts';
import { AppError } from './errors.ts';
import { connectDatabase, SERVER_APPLICATION_NAME, type Database } from './db/client.ts';
import { DataDirInUseError, hasEmbeddedCluster, liveServerPid, runningEmbeddedConnection, startEmbeddedPostgres } from './db/embedded.ts';
import { describeMigrations, runMigrations, type MigrationReport } from './db/migrate.ts';
import { runningBuild, staleBuildWarning } from './build-state.ts';
import { backupDatabase, readBackupHeader, restoreDatabase, secretFingerprint, type BackupHeader } from './db/backup.ts';
import { startJobQueue } from './jobs/queue.ts';
import { formatUsd } from '@storefront/domain/catalog.ts';

/**
 * `npm run cli -- <command> [args]`: operator commands. Each area adds its commands
 * to `commands`; they get a migrated database: DATABASE_URL, the running server's
 * embedded cluster, or the embedded cluster in DATA_DIR (in production only one that
 * exists: the CLI never makes a new, empty shop because DATABASE_URL was forgotten).
 * The CLI loads the settings without the ones only a serving shop needs (SMTP_URL,
 * PUBLIC_URL, AUTH_SECRET); a command that uses one says so in `needs`.
 */
type CliSetting = 'PUBLIC_URL' | 'AUTH_SECRET';

/** The database a command works on, as chosen before anything is opened. */
export interface DatabaseTarget {
  kind: 'external' | 'running-embedded' | 'embedded' | 'new-embedded';
  /** For the operator: which database this is. */
  description: string;
  /** The live server holding DATA_DIR ('running-embedded'). */
  serverPid?: number;
}

export interface CliContext {
  db: Database['db'];
  config: Config;
  target?: DatabaseTarget;
  /** What opening the database applied. */
  migrations?: MigrationReport;
  /** Progress and questions for the operator (stdout). */
  say?: (text: string) => void;
}

export interface CliCommand {
  usage: string;
  summary: string;
  /** Settings the command uses besides the database (required in production). */
  needs?: CliSetting[];
  /** May make a new embedded database in DATA_DIR (restore onto a new machine). */
  createsDatabase?: boolean;
  /** Checks made before the database is opened. */
  precheck?(args: string[], config: Config, target: DatabaseTarget): void;
  run(args: string[], context: CliContext): Promise<string>;
}

export class UsageError extends Error {}

/**
 * The local storage driver's folder, or null when objects live in an object store.
 * (STORAGE_URL comes with the S3 driver; until then every shop stores files locally.)
 */
export function localStorageDir(config: Config): string | null {
  return (config as Config & { STORAGE_URL?: string }).STORAGE_URL ? null : path.join(config.dataDir, 'storage');
}

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

export const commands: Record<string, CliCommand> = {
  migrate: {
    usage: 'migrate',
    summary: 'apply the database migrations (the server also does this at start)',
    run: async (_args, { migrations }) => (migrations ? `Migrations applied. ${describeMigrations(migrations)}` : 'Migrations applied.'),
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
  'create-label-account': {
    usage: 'create-label-account <username> <email>',
    summary: 'create an official account (reserved username, verified) and a link to set its password',
    needs: ['PUBLIC_URL', 'AUTH_SECRET'],
    async run([username, email], { db, config }) {
      if (!username || !email) throw new UsageError('Usage: npm run cli -- create-label-account <username> <email>');
      const account = await createLabelAccount(db, config, { username, email });
      const follows = config.SIGNUP_FOLLOW_USERNAMES.some((name) => name.toLowerCase() === account.username.toLowerCase());
      return [
        `Created the label account ${account.username} (${account.email}), verified${follows ? '; every new account follows it (SIGNUP_FOLLOW_USERNAMES)' : ''}.`,
        'Its password is random and unknown. Give this one-time link to whoever runs the account; it sets the password and works for one hour:',
        account.resetUrl,
        'Later, "Forgot password" on the login page mails a new link to that address.',
      ].join('\n');
    },
  },
  'grant-credits': {
    usage: 'grant-credits <email> <usd>',
    summary: 'add wallet credit (USD) to an account, through the ledger',
    async run([email, usd], { db }) {
      if (!email || !usd) throw new UsageError('Usage: npm run cli -- grant-credits <email> <usd>');
      const result = await grantCredits(db, email, usd);
      return `Granted ${formatUsd(result.cents)} to ${email}; balance now ${formatUsd(result.balance.balanceCents)}.`;
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
    usage: 'create-oauth-client <name> <redirect-uri>... [--backchannel-logout-uri <uri>] [--exchange-scope shop_api]',
    summary: 'register a sister product for single sign-on (secret shown once); options: back-channel logout, token exchange',
    needs: ['PUBLIC_URL', 'AUTH_SECRET'],
    async run(args, { db, config }) {
      const usage = `Usage: npm run cli -- create-oauth-client <name> <redirect-uri> [more redirect URIs] [--backchannel-logout-uri <uri>] [--exchange-scope ${EXCHANGE_SCOPES.join('|')}]`;
      const positional: string[] = [];
      const exchangeScopes: ExchangeScope[] = [];
      let backchannelLogoutUri: string | undefined;
      for (let index = 0; index < args.length; index += 1) {
        const arg = args[index]!;
        if (arg === '--backchannel-logout-uri' || arg === '--exchange-scope') {
          const value = args[(index += 1)];
          if (!value) throw new UsageError(`${arg} needs a value. ${usage}`);
          if (arg === '--exchange-scope') {
            const scope = EXCHANGE_SCOPES.find((known) => known === value);
            if (!scope) throw new UsageError(`--exchange-scope is one of: ${EXCHANGE_SCOPES.join(', ')}.`);
            exchangeScopes.push(scope);
          } else {
            const parsed = backchannelLogoutUriSchema.safeParse(value);
            if (!parsed.success) throw new UsageError(parsed.error.issues[0]!.message);
            backchannelLogoutUri = parsed.data;
          }
        } else if (arg.startsWith('--')) throw new UsageError(usage);
        else positional.push(arg);
      }
      const [name, ...redirectUris] = positional;
      if (!name || redirectUris.length === 0) throw new UsageError(usage);
      const parsed = redirectUris.map((uri) => redirectUriSchema.safeParse(uri));
      const refused = parsed.find((result) => !result.success);
      if (refused && !refused.success) throw new UsageError(refused.error.issues[0]!.message);
      const client = await createOAuthClient(db, sealKeyFor(config.AUTH_SECRET), { name, redirectUris, exchangeScopes, ...(backchannelLogoutUri ? { backchannelLogoutUri } : {}) });
      // Without PUBLIC_URL here (development) this shell cannot know the shop's address: it
      // says so instead of printing a localhost issuer the sister product would copy (issue 24).
      const issuer = config.PUBLIC_URL ? `${publicUrl(config)}${OIDC_MOUNT}` : null;
      return [
        `Single sign-on client for ${client.name} (keep the secret; it is shown only now):`,
        `  client_id:     ${client.clientId}`,
        `  client_secret: ${client.clientSecret}`,
        issuer
          ? `  issuer:        ${issuer}  (discovery: ${issuer}/.well-known/openid-configuration)`
          : `  issuer:        <the shop's PUBLIC_URL>${OIDC_MOUNT}  (PUBLIC_URL is not set for this command; a development shop without it is ${publicUrl(config)}${OIDC_MOUNT} only on its own PORT)`,
        `  redirect URIs: ${client.redirectUris.join(' ')}`,
        `  back-channel logout URI: ${client.backchannelLogoutUri ?? '(none: the shop does not tell this client when its users sign out)'}`,
        `  token exchange scopes:   ${client.exchangeScopes.length > 0 ? client.exchangeScopes.join(' ') : '(none: this client cannot exchange tokens)'}`,
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
  'reseal-secrets': {
    usage: 'reseal-secrets',
    summary: 'seal single sign-on secrets kept under AUTH_SECRET_PREVIOUS with AUTH_SECRET (secret rotation)',
    needs: ['AUTH_SECRET'],
    async run(_args, { db, config }) {
      const report = await resealOidcSecrets(db, sealKeyFor(config.AUTH_SECRET, config.AUTH_SECRET_PREVIOUS));
      const { clientIds, signingKeyIds } = report.unreadable;
      const lines = [
        `Re-sealed with AUTH_SECRET: ${report.resealed.clientSecrets} single sign-on client secret(s), ${report.resealed.signingKeys} signing key(s); ${report.current} already were.`,
      ];
      if (clientIds.length + signingKeyIds.length === 0) {
        lines.push('Nothing is sealed with an old secret any more: AUTH_SECRET_PREVIOUS can be retired once sessions have moved over (docs/operations.md).');
      } else {
        lines.push(
          `WARNING: sealed with a secret that is neither AUTH_SECRET nor in AUTH_SECRET_PREVIOUS, left as they are:${clientIds.map((id) => ` client ${id}`).join(',')}${signingKeyIds.map((kid) => ` signing key ${kid}`).join(',')}. Add the old secret to AUTH_SECRET_PREVIOUS and run this again, or register such clients again.`,
        );
      }
      return lines.join('\n');
    },
  },
  'collect-orphans': {
    usage: 'collect-orphans [--dry-run] [--older-than-hours N]',
    summary: 'delete stored images nothing refers to, older than ORPHAN_GRACE_HOURS (or N); --dry-run lists them',
    async run(args, { db, config }) {
      let dryRun = false;
      let olderThanHours = config.ORPHAN_GRACE_HOURS;
      for (let index = 0; index < args.length; index += 1) {
        const arg = args[index]!;
        if (arg === '--dry-run') dryRun = true;
        else if (arg === '--older-than-hours') {
          const value = Number(args[(index += 1)]);
          if (!Number.isFinite(value) || value < ORPHAN_GRACE_HOURS_MINIMUM)
            throw new UsageError(`--older-than-hours needs a number of hours, at least ${ORPHAN_GRACE_HOURS_MINIMUM}.`);
          olderThanHours = value;
        } else throw new UsageError('Usage: npm run cli -- collect-orphans [--dry-run] [--older-than-hours N]');
      }
      const report = await collectOrphans(createStorageDeps({ db, config }), { olderThanHours, dryRun });
      const bytes = report.orphans.reduce((sum, orphan) => sum + orphan.size, 0);
      const lines = report.orphans.map((orphan) => `  ${orphan.bucket}/${orphan.path}  ${orphan.size} bytes, last written ${orphan.updated.toISOString()}`);
      const head = dryRun
        ? `Dry run: would delete ${report.orphans.length} orphaned object(s), ${bytes} bytes (nothing refers to them, older than ${olderThanHours} hours); nothing was deleted.`
        : `Deleted ${report.orphans.length} orphaned object(s), ${bytes} bytes (nothing referred to them, older than ${olderThanHours} hours).`;
      return [head, ...lines, `Kept: ${report.kept} in use, ${report.young} younger than ${olderThanHours} hours.`].join('\n');
    },
  },
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

/** Picks the database; in production, refuses to make a new embedded one by mistake. */
export function chooseDatabase(config: Config, command: Pick<CliCommand, 'createsDatabase'>): DatabaseTarget {
  if (config.DATABASE_URL) {
    const url = new URL(config.DATABASE_URL);
    return { kind: 'external', description: `the PostgreSQL at DATABASE_URL (${url.hostname}:${url.port || '5432'}${url.pathname})` };
  }
  const pid = liveServerPid(config.dataDir);
  if (pid !== undefined) {
    return { kind: 'running-embedded', serverPid: pid, description: `the embedded database of the server running on DATA_DIR ${config.dataDir} (pid ${pid})` };
  }
  if (hasEmbeddedCluster(config.dataDir)) return { kind: 'embedded', description: `the embedded database in DATA_DIR ${config.dataDir}` };
  if (config.isProduction && !command.createsDatabase) {
    throw new ConfigError(
      `Invalid settings:\n  DATABASE_URL: required when NODE_ENV=production: there is no embedded database in DATA_DIR ${config.dataDir} to use. Set DATABASE_URL to the shop's PostgreSQL (or DATA_DIR to the folder the server runs from); nothing was changed.`,
    );
  }
  return { kind: 'new-embedded', description: `a NEW, empty embedded database in DATA_DIR ${config.dataDir} (there was none; set DATABASE_URL to use your PostgreSQL instead)` };
}

/** The settings the command needs; in production every missing one is named at once. */
export function settingsFor(config: Config, command: Pick<CliCommand, 'needs'>): Config {
  const missing = (command.needs ?? []).filter((name) => !config[name]);
  if (missing.length === 0) return config;
  if (config.isProduction) {
    throw new ConfigError(`Invalid settings:\n${missing.map((name) => `  ${name}: required by this command when NODE_ENV=production`).join('\n')}`);
  }
  // Outside production the server makes the same defaults: a secret kept in DATA_DIR.
  return missing.includes('AUTH_SECRET') ? { ...config, AUTH_SECRET: developmentSecret(config.dataDir) } : config;
}

async function withDatabase<T>(config: Config, target: DatabaseTarget, fn: (database: Database, migrations: MigrationReport) => Promise<T>): Promise<T> {
  const running = target.kind === 'running-embedded' ? runningEmbeddedConnection(config.dataDir) : undefined;
  if (target.kind === 'running-embedded' && !running) throw new DataDirInUseError(config.dataDir, target.serverPid ?? 0);
  const embedded = target.kind === 'embedded' || target.kind === 'new-embedded' ? await startEmbeddedPostgres({ dataDir: config.dataDir }) : null;
  const database = connectDatabase(config.DATABASE_URL ?? running ?? embedded!.connectionString, { max: 2, applicationName: 'storefront-cli' });
  try {
    const migrations = await runMigrations(database.pool);
    return await fn(database, migrations);
  } finally {
    await database.close();
    await embedded?.stop();
  }
}

function help(): string {
  const lines = Object.values(commands).map((command) => `  ${command.usage.padEnd(42)} ${command.summary}`);
  return `Usage: npm run cli -- <command>\n\nCommands:\n${lines.join('\n')}`;
}

/** The CLI as a program: `npm run cli` (scripts/cli.mjs) calls this, from the sources or the build. */
export async function runCli(argv: string[]): Promise<void> {
  const [name, ...args] = argv;
  const command = name ? commands[name] : undefined;
  if (!command) {
    console.log(help());
    process.exit(name && name !== 'help' ? 2 : 0);
  }
  const config = settingsFor(loadConfig(process.env, { serving: false }), command);
  const target = chooseDatabase(config, command);
  command.precheck?.(args, config, target);
  // On stderr, so a command's own output (a token, a link) stays alone on stdout.
  console.error(`Database: ${target.description}`);
  const build = runningBuild();
  if (build) {
    const warning = await staleBuildWarning(
      build.root,
      build.parts.filter((part) => part.part === 'server'),
    );
    if (warning) console.error(`Warning: ${warning}`);
  }
  const output = await withDatabase(config, target, ({ db }, migrations) => command.run(args, { db, config, target, migrations }));
  console.log(output);
}

/** Ends the program with the message of what went wrong (a usage or settings error: no stack). */
export function failCli(error: unknown): never {
  if (error instanceof UsageError || error instanceof ConfigError || error instanceof AppError || error instanceof DataDirInUseError) console.error(error.message);
  else console.error(error instanceof Error ? error.message : error);
  process.exit(1);
}

// Run only as the program (`npm run cli`), not when a test imports the commands.
const isProgram = process.argv[1] !== undefined && fs.realpathSync(process.argv[1]) === fileURLToPath(import.meta.url);
if (isProgram) runCli(process.argv.slice(2)).catch(failCli);
