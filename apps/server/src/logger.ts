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

/** The URL as a log may show it: secret query values and path tokens replaced by [redacted]. */
export function redactUrl(url: string): string {
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

/** pino's mixin: the scope's request id, unless the line's logger already names one (request.log). */
function requestIdOfScope(_merge: object, _level: number, logger: Logger): object {
  const scope = requestScope.getStore();
  if (!scope) return {};
  return 'requestId' in logger.bindings() ? {} : { requestId: scope.requestId };
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
