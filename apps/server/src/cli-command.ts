import path from 'node:path';
import type { Config } from './config.ts';
import type { Database } from './db/client.ts';
import type { MigrationReport } from './db/migrate.ts';

/** A command of the operator CLI (cli.ts): its shape, the database it works on, and its errors. */
export type CliSetting = 'PUBLIC_URL' | 'AUTH_SECRET';

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
