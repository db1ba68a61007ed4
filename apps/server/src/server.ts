import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.ts';
import type { Config } from './config.ts';
import { connectDatabase, SERVER_APPLICATION_NAME, type Database } from './db/client.ts';
import { startEmbeddedPostgres, type EmbeddedDatabase } from './db/embedded.ts';
import { runMigrations } from './db/migrate.ts';
import { runSeeds } from './seed/seed.ts';
import { createLogger, type Logger } from './logger.ts';
import { warnCleanup } from './cleanup.ts';

/** A running shop: the database (embedded or external), migrated and seeded, and the app. */
export interface RunningServer {
  app: FastifyInstance;
  database: Database;
  embedded: EmbeddedDatabase | null;
  close(): Promise<void>;
}

export async function openDatabase(config: Config, log: (message: string) => void) {
  const embedded = config.DATABASE_URL ? null : await startEmbeddedPostgres({ dataDir: config.dataDir, log: () => undefined });
  try {
    const database = connectDatabase(config.DATABASE_URL ?? embedded!.connectionString, { applicationName: SERVER_APPLICATION_NAME });
    await runMigrations(database.pool);
    // Sample content only where nobody's real data can be: the embedded dev database.
    if (embedded && !config.isProduction) await runSeeds(database.db, { config, log });
    return { embedded, database };
  } catch (error) {
    await embedded?.stop();
    throw error;
  }
}

export async function startServer(config: Config, logger: Logger = createLogger(config)): Promise<RunningServer> {
  const log = (message: string) => logger.info(message);
  const { embedded, database } = await openDatabase(config, log);
  let app: FastifyInstance;
  try {
    app = await buildApp({ config, db: database.db, loggerInstance: logger });
    await app.listen({ port: config.PORT, host: config.HOST });
  } catch (error) {
    await database.close();
    await embedded?.stop();
    throw error;
  }
  let closing: Promise<void> | undefined;
  return {
    app,
    database,
    embedded,
    close() {
      // Stop accepting, let requests in flight finish, then the pool, then postgres.
      closing ??= (async () => {
        try {
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
