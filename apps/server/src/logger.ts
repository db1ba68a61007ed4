import { AsyncLocalStorage } from 'node:async_hooks';
import { pino, type DestinationStream, type Logger } from 'pino';
import type { Config } from './config.ts';

/**
 * The one logger (issue 13): JSON lines in production (for the process manager / journald
 * to collect and rotate), one readable line per entry in development. Fastify, Better Auth
 * and start-up messages all write through it; LOG_LEVEL sets its level.
 */
export type { Logger };

// Query parameters that carry a secret: e-mail verification, password reset and download
// tokens, OpenID codes and tokens. Their values never reach a log.
const SECRET_PARAMS = new Set(['token', 'code', 'access_token', 'refresh_token', 'id_token', 'id_token_hint', 'client_secret', 'password']);
// Path segments after these carry a token: /api/auth/reset-password/<token>.
const SECRET_SEGMENT_AFTER = /(\/reset-password\/|\/verify-email\/|\/magic-link\/|^\/dl\/)[^/?#]+/gi;

// The same words, to tell cheaply whether a URL needs the replace at all (no /g: no lastIndex).
const HAS_SECRET_SEGMENT = /\/reset-password\/|\/verify-email\/|\/magic-link\/|^\/dl\//i;

/** The URL as a log may show it: secret query values and path tokens replaced by [redacted]. */
export function redactUrl(url: string): string {
  // Most URLs have no query and no token: the request line of every read pays only this test (issue 38).
  if (!url.includes('?') && !HAS_SECRET_SEGMENT.test(url)) return url;
  const [pathPart = '', ...rest] = url.split('?');
  const path = pathPart.replace(SECRET_SEGMENT_AFTER, '$1[redacted]');
  if (rest.length === 0) return path;
  const query = rest
    .join('?')
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq === -1 ? pair : pair.slice(0, eq);
      let decoded = name;
      try {
        decoded = decodeURIComponent(name);
      } catch {
        // Keep the name as sent.
      }
      return eq !== -1 && SECRET_PARAMS.has(decoded.toLowerCase()) ? `${name}=[redacted]` : pair;
    })
    .join('&');
  return `${path}?${query}`;
}

const LEVEL_NAMES: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
const HIDDEN = new Set(['level', 'time', 'pid', 'hostname', 'msg']);

/** One pino JSON line as a line a person reads: `12:00:01.234 INFO  message key=value`. */
export function prettyLine(json: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json.endsWith('\n') ? json : `${json}\n`;
  }
  const time = new Date(Number(entry.time)).toISOString().slice(11, 23);
  const level = (LEVEL_NAMES[Number(entry.level)] ?? String(entry.level)).padEnd(5);
  const fields: string[] = [];
  let stack = '';
  for (const [key, value] of Object.entries(entry)) {
    if (HIDDEN.has(key)) continue;
    if (key === 'err' && value && typeof value === 'object' && 'stack' in value) {
      stack = `\n    ${String((value as { stack: unknown }).stack).replaceAll('\n', '\n    ')}`;
      continue;
    }
    fields.push(`${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`);
  }
  return `${time} ${level} ${String(entry.msg ?? '')}${fields.length ? `  ${fields.join(' ')}` : ''}${stack}\n`;
}

/**
 * The request a piece of work belongs to (issue 25 item 6, issue 24 item 8): buildApp runs each
 * request's hooks and handler inside it, so every line logged meanwhile (the root logger's too:
 * Better Auth's messages, a job queued from the handler) carries the request's id.
 */
const requestScope = new AsyncLocalStorage<{ requestId: string }>();

export function runInRequestScope<T>(requestId: string, work: () => T): T {
  return requestScope.run({ requestId }, work);
}

/**
 * pino's mixin: the scope's request id, unless the line's logger already names one (request.log).
 * Runs for every line written: the logger's bindings are read as pino keeps them (a JSON
 * fragment), not parsed (`bindings()` parses them each time). pino merges the line's fields
 * into the object returned: a new one each time.
 */
function requestIdOfScope(_merge: object, _level: number, logger: Logger): object {
  const scope = requestScope.getStore();
  if (!scope) return {};
  const bound = (logger as unknown as Record<symbol, unknown>)[pino.symbols.chindingsSym];
  return typeof bound === 'string' && bound.includes('"requestId":') ? {} : { requestId: scope.requestId };
}

type Level = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal';
type LogArgs = [obj: unknown, msg?: string, ...args: unknown[]];

/**
 * A request's logger (Fastify's `request.log`) that becomes pino's child with the request's
 * id only when a line is written at a level that is on. pino makes a child by serialising its
 * bindings; made for every request, that was a read's largest logging cost, while most
 * requests write nothing (issue 38). The lines are the child's, the same as before.
 */
class RequestLogger {
  #parent: Logger;
  #bindings: Record<string, unknown>;
  #child: Logger | undefined;
  constructor(parent: Logger, bindings: Record<string, unknown>) {
    this.#parent = parent;
    this.#bindings = bindings;
  }
  #logger(): Logger {
    return (this.#child ??= this.#parent.child(this.#bindings));
  }
  #write(level: Level, args: LogArgs) {
    if (this.#child === undefined && !this.#parent.isLevelEnabled(level)) return;
    (this.#logger()[level] as (...line: LogArgs) => void)(...args);
  }
  get level(): string {
    return (this.#child ?? this.#parent).level;
  }
  set level(level: string) {
    this.#logger().level = level;
  }
  isLevelEnabled(level: string): boolean {
    return (this.#child ?? this.#parent).isLevelEnabled(level);
  }
  trace(...args: LogArgs) {
    this.#write('trace', args);
  }
  debug(...args: LogArgs) {
    this.#write('debug', args);
  }
  info(...args: LogArgs) {
    this.#write('info', args);
  }
  warn(...args: LogArgs) {
    this.#write('warn', args);
  }
  error(...args: LogArgs) {
    this.#write('error', args);
  }
  fatal(...args: LogArgs) {
    this.#write('fatal', args);
  }
  silent() {}
  child(bindings: Record<string, unknown>, options?: object): Logger {
    return this.#logger().child(bindings, options);
  }
  bindings(): Record<string, unknown> {
    return this.#logger().bindings();
  }
  flush(callback?: (error?: Error) => void) {
    this.#parent.flush(callback);
  }
}

/**
 * Fastify's `childLoggerFactory`: each request's logger, made lazily (RequestLogger). Options
 * for one route (its own level or serializers) are pino's to apply: such a child is made at once.
 */
export function requestLoggerFactory(logger: Logger, bindings: Record<string, unknown>, options: { level?: string; serializers?: unknown }): Logger {
  if (options.level !== undefined || options.serializers !== undefined) return logger.child(bindings, options as object);
  return new RequestLogger(logger, bindings) as unknown as Logger;
}

export function createLogger(config: Pick<Config, 'LOG_LEVEL' | 'isProduction'>, destination?: DestinationStream): Logger {
  const options = { level: config.LOG_LEVEL, base: config.isProduction ? { pid: process.pid } : null, mixin: requestIdOfScope };
  if (destination) return pino(options, destination);
  if (config.isProduction) return pino(options); // JSON lines on stdout, written synchronously
  return pino(options, { write: (line: string) => void process.stdout.write(prettyLine(line.trimEnd())) });
}

/** Better Auth's `logger` option: its messages through ours, at their own level. */
export function betterAuthLogger(logger: Logger) {
  return {
    level: 'debug' as const,
    log(level: 'debug' | 'info' | 'warn' | 'error', message: string, ...args: unknown[]) {
      const text = `[Better Auth] ${message}`;
      if (args.length > 0) logger[level]({ details: args.map((arg) => (arg instanceof Error ? arg.message : arg)) }, text);
      else logger[level](text);
    },
  };
}
