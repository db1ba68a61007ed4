import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { makeAdmin } from './accounts/accounts.service.ts';
import { createLabelAccount } from './accounts/label-accounts.ts';
import { createServiceToken, revokeServiceToken } from './service/service.tokens.ts';
import { type Config, ConfigError, developmentSecret, loadConfig, publicUrl } from './config.ts';
import {
  ADMIN_SCOPE,
  backchannelLogoutUriSchema,
  createOAuthClient,
  EXCHANGE_SCOPES,
  OAUTH_CLIENT_MESSAGES,
  redirectUriSchema,
  revokeOAuthClient,
  type ExchangeScope,
} from './oidc/oidc.clients.ts';
import { OIDC_MOUNT, sealKeyFor } from './oidc/oidc.provider.ts';
import { resealOidcSecrets } from './oidc/reseal.service.ts';
import { collectOrphans, ORPHAN_GRACE_HOURS_MINIMUM } from './storage/orphans.service.ts';
import { createStorageDeps } from './storage/storage.service.ts';
import { grantCredits } from './wallet/wallet.commands.ts';
import { unlinkedReport } from './roster/unlinked.ts';
import { AppError } from './errors.ts';
import { connectDatabase, type Database } from './db/client.ts';
import { DataDirInUseError, hasEmbeddedCluster, liveServerPid, runningEmbeddedConnection, startEmbeddedPostgres } from './db/embedded.ts';
import { describeMigrations, runMigrations, type MigrationReport } from './db/migrate.ts';
import { runningBuild, staleBuildWarning } from './build-state.ts';
import { formatUsd } from '@storefront/domain/catalog.ts';

import { backupCommands } from './cli-backup.ts';
import { UsageError, type CliCommand, type DatabaseTarget } from './cli-command.ts';
/**
 * `npm run cli -- <command> [args]`: operator commands. Each area adds its commands
 * to `commands`; they get a migrated database: DATABASE_URL, the running server's
 * embedded cluster, or the embedded cluster in DATA_DIR (in production only one that
 * exists: the CLI never makes a new, empty shop because DATABASE_URL was forgotten).
 * The CLI loads the settings without the ones only a serving shop needs (SMTP_URL,
 * PUBLIC_URL, AUTH_SECRET); a command that uses one says so in `needs`.
 */
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
  'roster-unlinked': {
    usage: 'roster-unlinked',
    summary: 'list the releases credited to no roster artist (what migration 0046 could not match)',
    run: async (_args, { db }) => unlinkedReport(db),
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
    usage: 'create-oauth-client <name> <redirect-uri>... [--backchannel-logout-uri <uri>] [--exchange-scope shop_api] [--first-party --exchange-scope shop_admin]',
    summary: 'register a sister product for single sign-on (secret shown once); options: back-channel logout, token exchange',
    needs: ['PUBLIC_URL', 'AUTH_SECRET'],
    async run(args, { db, config }) {
      const usage = `Usage: npm run cli -- create-oauth-client <name> <redirect-uri> [more redirect URIs] [--backchannel-logout-uri <uri>] [--exchange-scope ${EXCHANGE_SCOPES.join('|')}] [--first-party]`;
      const positional: string[] = [];
      let firstParty = false;
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
        } else if (arg === '--first-party') firstParty = true;
        else if (arg.startsWith('--')) throw new UsageError(usage);
        else positional.push(arg);
      }
      const [name, ...redirectUris] = positional;
      if (!name || redirectUris.length === 0) throw new UsageError(usage);
      const parsed = redirectUris.map((uri) => redirectUriSchema.safeParse(uri));
      const refused = parsed.find((result) => !result.success);
      if (refused && !refused.success) throw new UsageError(refused.error.issues[0]!.message);
      if (exchangeScopes.includes(ADMIN_SCOPE) && !firstParty) throw new UsageError(OAUTH_CLIENT_MESSAGES.adminNeedsFirstParty);
      const client = await createOAuthClient(db, sealKeyFor(config.AUTH_SECRET), {
        name,
        redirectUris,
        exchangeScopes,
        firstParty,
        ...(backchannelLogoutUri ? { backchannelLogoutUri } : {}),
      });
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
  ...backupCommands,
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
