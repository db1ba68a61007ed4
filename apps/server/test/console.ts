import { vi, type MockInstance } from 'vitest';

/**
 * An unexpected console.error fails the test that caused it (as in the Epic Stack): it
 * usually means an error was swallowed and only logged. A test that expects one says so
 * with `expectConsoleError()` and can then assert on the calls.
 */
let spy: MockInstance<typeof console.error> | undefined;
let unexpected: unknown[][] = [];
let expected = false;

export function watchConsoleError({ echo = true }: { echo?: boolean } = {}): void {
  spy?.mockRestore();
  const original = console.error.bind(console);
  unexpected = [];
  expected = false;
  spy = vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => {
    if (expected) return;
    unexpected.push(args);
    if (echo) original(...args);
  });
}

/** Silences console.error for the current test and returns the spy to assert on. */
export function expectConsoleError(): MockInstance<typeof console.error> {
  if (!spy) throw new Error('console.error is not being watched (is setup-console.ts a setupFile?).');
  expected = true;
  return spy;
}

export function checkConsoleError(): void {
  spy?.mockRestore();
  spy = undefined;
  const calls = unexpected;
  unexpected = [];
  if (!expected && calls.length > 0) {
    const first = calls[0]!.map((arg) => (arg instanceof Error ? arg.stack : String(arg))).join(' ');
    throw new Error(`console.error was called ${calls.length} time(s) during this test, first with: ${first}\n` + 'Call expectConsoleError() in the test if this is expected.');
  }
}
