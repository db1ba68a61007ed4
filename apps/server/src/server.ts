import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.ts';
import type { Config } from './config.ts';
import { connectDatabase, SERVER_APPLICATION_NAME, type Database } from './db/client.ts';
import { startEmbeddedPostgres, type EmbeddedDatabase } from './db/embedded.ts';
import { describeMigrations, runMigrations } from './db/migrate.ts';
import { startMetricsServer } from './metrics/metrics.ts';
import { accountsSeeder } from './accounts/accounts.seed.ts';
import { productsSeeder } from './catalog/catalog.seed.ts';
import { contentSeeder, runSeeds, type Seeder } from './seed/seed.ts';
import { walletSeeder } from './wallet/wallet.seed.ts';
import { createLogger, type Logger } from './logger.ts';
import { warnCleanup } from './cleanup.ts';

/** The sample content of a new embedded database, in the order it is written: each area's seeder. */
export const SEEDERS: readonly Seeder[] = [contentSeeder, accountsSeeder, productsSeeder, walletSeeder];

/** A running shop: the database (embedded or external), migrated and seeded, and the app. */
export interface RunningServer {
  app: FastifyInstance;
  database: Database;
  embedded: EmbeddedDatabase | null;
  close(): Promise<void>;
}

export async function openDatabase(config: Config, log: (message: string) => void) {
  const embedded = config.DATABASE_URL ? null : await startEmbeddedPostgres({ dataDir: config.dataDir, log: () => undefined, notice: log });
  try {
    const database = connectDatabase(config.DATABASE_URL ?? embedded!.connectionString, { applicationName: SERVER_APPLICATION_NAME });
    log(describeMigrations(await runMigrations(database.pool)));
    // Sample content only where nobody's real data can be: the embedded dev database.
    if (embedded && !config.isProduction) await runSeeds(database.db, { config, log }, SEEDERS);
    return { embedded, database };
  } catch (error) {
    await embedded?.stop();
    throw error;
  }
}

export async function startServer(config: Config, logger: Logger = createLogger(config)): Promise<RunningServer> {
  const log = (message: string) => logger.info(message);
  const { embedded, database } = await openDatabase(config, log);
  let built: FastifyInstance | undefined;
  let metricsServer: Awaited<ReturnType<typeof startMetricsServer>> = null;
  try {
    built = await buildApp({ config, db: database.db, loggerInstance: logger });
    await built.listen({ port: config.PORT, host: config.HOST });
    metricsServer = await startMetricsServer(config, built.metrics);
    if (metricsServer) log(`Metrics at http://${config.HOST}:${config.METRICS_PORT}/metrics${config.METRICS_TOKEN ? ' (bearer METRICS_TOKEN)' : ''}`);
  } catch (error) {
    // Its job queue and live connection would keep the pool busy.
    await built?.close().catch(warnCleanup('closing the app after a failed start'));
    await database.close();
    await embedded?.stop();
    throw error;
  }
  const app = built;
  let closing: Promise<void> | undefined;
  return {
    app,
    database,
    embedded,
    close() {
      // Stop accepting, let requests in flight finish, then the pool, then postgres.
      closing ??= (async () => {
        try {
          metricsServer?.closeAllConnections();
          metricsServer?.close();
          await app.close();
        } finally {
          await database.close().catch(warnCleanup('closing the database pool'));
          await embedded?.stop();
        }
      })();
      return closing;
    },
  };
}
