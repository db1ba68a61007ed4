import fs from 'node:fs';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { connectDatabase } from '../src/db/client.ts';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../src/db/embedded.ts';
import { runMigrations } from '../src/db/migrate.ts';
import { withDatabase } from './connection-string.ts';
import { newTestDataDir, removeAbandonedTestDataDirs } from './temp-data-dirs.ts';

/**
 * Starts one PostgreSQL for the whole test run (embedded in a throw-away folder, or the
 * server named by TEST_DATABASE_URL) and prepares a migrated template database that
 * every test file clones (see database.ts).
 */
export const TEMPLATE_DATABASE = 'storefront_template';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Connection string of a role that may create databases, on the `postgres` database. */
    adminDatabaseUrl: string;
    templateDatabase: string;
  }
}

async function prepareTemplate(adminUrl: string): Promise<void> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${TEMPLATE_DATABASE} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${TEMPLATE_DATABASE}`);
  } finally {
    await admin.end();
  }
  const template = connectDatabase(withDatabase(adminUrl, TEMPLATE_DATABASE), { max: 1 });
  try {
    await runMigrations(template.pool);
  } finally {
    // CREATE DATABASE ... TEMPLATE refuses while anyone is connected to the template.
    await template.close();
  }
}

export default async function setup(project: TestProject) {
  let embedded: EmbeddedDatabase | null = null;
  let dataDir: string | null = null;
  let adminUrl: string;

  const external = process.env.TEST_DATABASE_URL;
  if (external) {
    adminUrl = external;
  } else {
    removeAbandonedTestDataDirs();
    dataDir = newTestDataDir('run');
    embedded = await startEmbeddedPostgres({ dataDir, ephemeral: true });
    adminUrl = withDatabase(embedded.connectionString, 'postgres');
  }

  try {
    await prepareTemplate(adminUrl);
  } catch (error) {
    await embedded?.stop();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }

  project.provide('adminDatabaseUrl', adminUrl);
  project.provide('templateDatabase', TEMPLATE_DATABASE);

  return async () => {
    try {
      await embedded?.stop();
    } finally {
      if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
    }
  };
}
