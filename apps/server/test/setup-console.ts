import { afterEach, beforeEach } from 'vitest';
import { checkConsoleError, watchConsoleError } from './console.ts';

beforeEach(() => watchConsoleError());
afterEach(() => checkConsoleError());
