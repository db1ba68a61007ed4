import { describe, expect, it } from 'vitest';
import { checkConsoleError, expectConsoleError, watchConsoleError } from './console.ts';

describe('the console.error guard (setup-console.ts)', () => {
  it('fails a test that logs an unexpected console.error, naming what was logged', () => {
    watchConsoleError({ echo: false });
    console.error('Listener failed:', new Error('socket closed'));
    expect(() => checkConsoleError()).toThrow(/console\.error was called 1 time\(s\).*Listener failed: Error: socket closed/s);
    watchConsoleError();
  });

  it('lets a test that expects console.error assert on it', () => {
    const spy = expectConsoleError();
    console.error('Shutdown took longer than 20 s; exiting.');
    expect(spy).toHaveBeenCalledWith('Shutdown took longer than 20 s; exiting.');
  });

  it('passes a test that logs nothing', () => {
    watchConsoleError({ echo: false });
    expect(() => checkConsoleError()).not.toThrow();
    watchConsoleError();
  });
});
