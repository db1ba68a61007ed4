import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import net from 'node:net';

/**
 * The one reader of process.env. Every setting of DESIGN.md is parsed here, and a bad
 * value stops start-up with a message that names the variable.
 */
const emailList = z
  .string()
  .default('')
  .transform((value) =>
    value
      .split(',')
      .map((item) => item.trim().toLowerCase())
      .filter(Boolean),
  )
  .pipe(z.array(z.email()));

const nameList = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((value) =>
      value
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean),
    );

const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  // Default: 127.0.0.1 outside production, 0.0.0.0 in production (set in loadConfig).
  HOST: z.string().min(1).optional(),
  PUBLIC_URL: z.url().optional(),
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
    .optional(),
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\//, 'must be an smtp:// or smtps:// URL')
    .optional(),
  MAIL_FROM: z.string().min(3).default('Street Flavor Records <shop@localhost>'),
  /** Mails sent at once per process, over as many pooled SMTP connections (issue 40 item 20). */
  MAIL_CONCURRENCY: z.coerce.number().int().min(1).max(100).default(10),
  /** At most this many mails a second per process (your SMTP provider's limit, divided by the instances). */
  MAIL_RATE_PER_SECOND: z.coerce.number().int().min(1).max(10_000).default(100),
  /**
   * Database connections per process (issue 40 item 20). Every instance, the CLI and the job
   * queue share PostgreSQL's max_connections: see docs/operations.md, section 5.3.
   */
  DB_POOL_MAX: z.coerce.number().int().min(2).max(1000).default(10),
  ADMIN_EMAILS: emailList,
  // No default here: outside production it is `local`, in production `stripe` (loadConfig).
  PAYMENT_PROVIDER: z.enum(['local', 'stripe']).optional(),
  ALLOW_TEST_PAYMENTS: z
    .enum(['0', '1', 'true', 'false'], 'must be 1 (allow) or 0')
    .default('0')
    .transform((value) => value === '1' || value === 'true'),
  STRIPE_SECRET_KEY: z.string().startsWith('sk_').optional(),
  STRIPE_WEBHOOK_SECRET: z.string().startsWith('whsec_').optional(),
  CONTACT_EMAIL: z.email().default('info@streetflavorrecords.example'),
  // The label's days for the sales overview (issue 29, decision 045): an IANA time zone.
  LABEL_TIME_ZONE: z
    .string()
    .default('UTC')
    .refine((zone) => {
      try {
        new Intl.DateTimeFormat('en-US', { timeZone: zone });
        return true;
      } catch {
        return false;
      }
    }, 'must be an IANA time zone such as America/New_York or UTC'),
  BLOCKED_EMAIL_DOMAINS: nameList('mailinator.com,guerrillamail.com'),
  SIGNUP_FOLLOW_USERNAMES: nameList('streetflavor,spndat,thedatchain,tdcmarket'),
  APP_DEEP_LINK_SCHEME: z
    .string()
    .regex(/^[a-z][a-z0-9+.-]*$/, 'must be a URL scheme such as mydat')
    .default('mydat'),
  AUTH_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  /**
   * Old AUTH_SECRETs, comma-separated, during a rotation (decision 047): they still verify
   * session cookies, bearer tokens and known-device cookies and still open sealed single
   * sign-on secrets, while AUTH_SECRET signs and seals everything new. Empty: no rotation.
   */
  AUTH_SECRET_PREVIOUS: nameList('').pipe(z.array(z.string().min(32, 'each old secret must be at least 32 characters'))),
  /**
   * The coming AUTH_SECRET, comma-separated, for the first phase of a rotation (issue 40 item
   * 19): accepted like an old secret (it verifies and opens) but never used to sign, so every
   * instance accepts it before any instance signs with it. Merged into AUTH_SECRET_PREVIOUS.
   */
  AUTH_SECRET_NEXT: nameList('').pipe(z.array(z.string().min(32, 'each coming secret must be at least 32 characters'))),
  SIGNUP_RATE_LIMIT: z.coerce.number().int().positive().default(10),
  SIGNIN_RATE_LIMIT: z.coerce.number().int().positive().default(10),
  /**
   * Card checkouts (each a payment provider call) and quotes (with Stripe Tax, each a billed
   * calculation) a minute, per account and per client address (issue 40 item 7). An address is
   * shared by everyone behind one NAT, so its limits are higher.
   */
  CHECKOUT_RATE_LIMIT: z.coerce.number().int().positive().default(10),
  CHECKOUT_ADDRESS_RATE_LIMIT: z.coerce.number().int().positive().default(30),
  QUOTE_RATE_LIMIT: z.coerce.number().int().positive().default(60),
  QUOTE_ADDRESS_RATE_LIMIT: z.coerce.number().int().positive().default(180),
  UPLOAD_MAX_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(20 * 1024 * 1024),
  /** The largest lossless master (a track's WAV, AIFF or FLAC) an admin may upload (issue 28). */
  MASTER_UPLOAD_MAX_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .max(2 ** 31 - 1)
    .default(1024 * 1024 * 1024),
  /** One ffmpeg run (one format of one track) is stopped after this many seconds (issue 28). */
  ENCODE_TIMEOUT_SECONDS: z.coerce.number().int().positive().default(600),
  // Reverse proxies whose X-Forwarded-For is believed (decision 017); none by default.
  TRUSTED_PROXIES: nameList('').transform((entries, context) => {
    const parsed = parseTrustedProxies(entries);
    if ('error' in parsed) {
      context.addIssue({ code: 'custom', message: parsed.error });
      return z.NEVER;
    }
    return parsed.ranges;
  }),
  /** Origins of the sister products' web apps that may call /fn, /v0 and /api/live from the browser (decision 029). */
  CORS_ORIGINS: nameList('').transform((entries, context) => {
    const origins: string[] = [];
    for (const entry of entries) {
      let url: URL | undefined;
      try {
        url = new URL(entry);
      } catch {
        url = undefined;
      }
      if (!url || !/^https?:$/.test(url.protocol) || url.origin !== entry.replace(/\/$/, '')) {
        context.addIssue({ code: 'custom', message: `${entry} is not an origin such as https://music.example (scheme, host and port only)` });
        return z.NEVER;
      }
      origins.push(url.origin);
    }
    return origins;
  }),
  /** Where stored objects live: unset for DATA_DIR/storage, or s3://bucket/prefix (decision 022). */
  STORAGE_URL: z
    .string()
    .regex(/^s3:\/\/[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](\/.*)?$/, 'must be s3://<bucket>[/<prefix>] (or unset for the local disk)')
    .optional(),
  S3_ENDPOINT: z.url().optional(),
  S3_REGION: z.string().min(1).default('us-east-1'),
  S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  S3_FORCE_PATH_STYLE: z.enum(['0', '1', 'true', 'false']).optional(),
  /** An upload session that received nothing for this long is expired and its bytes reclaimed. */
  UPLOAD_SESSION_IDLE_HOURS: z.coerce.number().positive().default(24),
  /**
   * An uploaded image nothing refers to (never used, or replaced) is deleted once it is this
   * old, by a daily job and `collect-orphans` (decision 047).
   */
  ORPHAN_GRACE_HOURS: z.coerce
    .number()
    .min(1)
    .max(24 * 365)
    .default(72),
  /** Card refund calls that got no answer are retried in the background, this many calls in all (decision 034). */
  REFUND_RETRY_ATTEMPTS: z.coerce.number().int().min(1).max(50).default(6),
  /** The first background retry waits this long; each next one twice as long. */
  REFUND_RETRY_BASE_MS: z.coerce.number().int().min(10).max(3_600_000).default(30_000),
  /** A royalty payout run pays a party at least this much (USD cents); a smaller balance accrues (decision 077). */
  ROYALTY_MIN_PAYOUT_CENTS: z.coerce.number().int().min(1).max(100_000_000).default(1000),
  /** Test switch: the local provider's next this many card refunds fail after acceptance (decision 034); refused in production. */
  LOCAL_REFUND_FAILURES: z.coerce.number().int().min(0).max(1000).default(0),
  /**
   * How long a card checkout holds its units and wallet credit (decision 044): a drop's units
   * come back at this deadline if the buyer does not pay. Stripe's page stays payable for at
   * least 30 minutes, so it is closed through its API when the hold ends.
   */
  CHECKOUT_HOLD_MINUTES: z.coerce.number().int().min(1).max(1440).default(10),
  /** A drop join challenge's cost (decision 066): altcha's largest number, a browser tries about half (SHA-256 each); 0: off. */
  DROP_CHALLENGE_COST: z.coerce.number().int().min(0).max(10_000_000).default(100_000),
  /** Drop joins per client address per minute (decision 066); a venue's or a carrier's NAT shares one address. */
  DROP_JOINS_PER_ADDRESS: z.coerce.number().int().min(1).max(1_000_000).default(120),
  /** In ms, how often each instance serves waitlists and wishlists besides the stock changes it hears (decision 076), and runs a live drop's admission round (066). */
  NOTIFY_ROUND_MS: z.coerce.number().int().min(100).max(600_000).default(15_000),
  /** In ms, how often each instance looks for announcements to send besides the ones started on it (decision 079). */
  ANNOUNCE_ROUND_MS: z.coerce.number().int().min(100).max(600_000).default(5_000),
  /** Test switch (browser tests; ignored when NODE_ENV=production): a cart reminder hour in ms, and its round's interval when shorter (decision 078). */
  CART_REMINDER_HOUR_MS: z.coerce.number().int().min(1000).max(3_600_000).default(3_600_000),
  DROP_ADVANCE_MS: z.coerce.number().int().min(100).max(60_000).default(1000),
  /** A port of its own for GET /metrics (Prometheus), on METRICS_HOST; unset: no such port (decision 040). */
  METRICS_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  /**
   * The interface METRICS_PORT listens on (issue 40 item 10): this host only unless named; any
   * other address needs METRICS_TOKEN (the metrics carry sales volume).
   */
  METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  /** A bearer token for GET /metrics: on the shop's own port (only then served there) and on METRICS_PORT. */
  METRICS_TOKEN: z.string().min(24, 'must be at least 24 characters (openssl rand -hex 24)').optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export type Env = z.infer<typeof envSchema>;

/** The S3-compatible object store of STORAGE_URL=s3://bucket/prefix. */
export interface S3Settings {
  bucket: string;
  /** Key prefix without slashes at either end; '' for the bucket's root. */
  prefix: string;
  endpoint: string | undefined;
  region: string;
  /** Unset: the SDK's usual chain (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, profiles, instance roles). */
  credentials: { accessKeyId: string; secretAccessKey: string } | undefined;
  forcePathStyle: boolean;
}

export interface Config extends Omit<Env, 'AUTH_SECRET' | 'HOST' | 'S3_FORCE_PATH_STYLE' | 'PAYMENT_PROVIDER'> {
  /** The interface to listen on. */
  HOST: string;
  /** Set when STORAGE_URL names an S3 bucket; the local disk otherwise. */
  s3: S3Settings | undefined;
  /** Signs sessions and tokens. */
  AUTH_SECRET: string;
  /** Old secrets that still verify and unseal during a rotation (never sign or seal); never AUTH_SECRET itself. */
  AUTH_SECRET_PREVIOUS: string[];
  PAYMENT_PROVIDER: 'local' | 'stripe';
  dataDir: string;
  isProduction: boolean;
  /** Where the built web app lives. */
  webDistDir: string;
  /** Where the label's sample content (pages, artwork) lives. */
  contentDir: string;
}

/** Card payments are fake (the local provider, allowed in production only by ALLOW_TEST_PAYMENTS=1): pages say TEST MODE. */
export function takesTestPayments(config: Pick<Config, 'PAYMENT_PROVIDER'>): boolean {
  return config.PAYMENT_PROVIDER === 'local';
}

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** Where the embedded shop keeps its AUTH_SECRET when none is set (it travels in backups). */
export function authSecretFile(dataDir: string): string {
  return path.join(dataDir, 'auth-secret');
}

/** The secret kept in DATA_DIR, if one was made there. */
export function storedAuthSecret(dataDir: string): string | undefined {
  try {
    return fs.readFileSync(authSecretFile(dataDir), 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

/** Outside production: a random secret kept in DATA_DIR, so sessions survive restarts. */
export function developmentSecret(dataDir: string): string {
  const file = authSecretFile(dataDir);
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch {
    fs.mkdirSync(dataDir, { recursive: true });
    const secret = randomBytes(32).toString('base64url');
    fs.writeFileSync(file, secret, { mode: 0o600 });
    return secret;
  }
}

function s3Settings(values: Env, forcePathStyle: Env['S3_FORCE_PATH_STYLE']): S3Settings | undefined {
  if (!values.STORAGE_URL) return undefined;
  const rest = values.STORAGE_URL.slice('s3://'.length);
  const slash = rest.indexOf('/');
  const bucket = slash === -1 ? rest : rest.slice(0, slash);
  const prefix = slash === -1 ? '' : rest.slice(slash + 1).replace(/^\/+|\/+$/g, '');
  return {
    bucket,
    prefix,
    endpoint: values.S3_ENDPOINT,
    region: values.S3_REGION,
    credentials: values.S3_ACCESS_KEY_ID && values.S3_SECRET_ACCESS_KEY ? { accessKeyId: values.S3_ACCESS_KEY_ID, secretAccessKey: values.S3_SECRET_ACCESS_KEY } : undefined,
    // Path style (endpoint/bucket/key) is what MinIO, Ceph and local servers expect; AWS
    // itself and R2 take either. Default: on when an endpoint is given.
    forcePathStyle: forcePathStyle === undefined ? values.S3_ENDPOINT !== undefined : forcePathStyle === '1' || forcePathStyle === 'true',
  };
}

// Three levels up from apps/server/src (the sources) and from apps/server/dist (the bundle).
const repoRoot = path.resolve(import.meta.dirname, '../../..');

export interface LoadOptions {
  /**
   * The CLI's load (false): the settings only a serving shop needs (PUBLIC_URL, SMTP_URL,
   * AUTH_SECRET in production) are not required, and no secret file is created; each
   * command asks for what it uses (cli.ts). The server's load (true, the default) requires them.
   */
  serving?: boolean;
}

/** An interface only this host reaches: a loopback address or localhost (0.0.0.0 and :: are every interface). */
function isLocalInterface(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '');
  if (bare === 'localhost') return true;
  const family = net.isIP(bare);
  if (family === 0) return false;
  const loopback = new net.BlockList();
  loopback.addSubnet('127.0.0.0', 8, 'ipv4');
  loopback.addSubnet('::1', 128, 'ipv6');
  return loopback.check(bare, family === 4 ? 'ipv4' : 'ipv6');
}

export function loadConfig(env: Record<string, string | undefined> = process.env, options: LoadOptions = {}): Config {
  const serving = options.serving ?? true;
  // An empty variable means "not set", as in most shells' `FOO= npm start`.
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== '')) as Record<string, string>;
  const parsed = envSchema.safeParse(present);
  // Every bad variable at once: the value errors, then the rules between variables (judged
  // on what was given, so a bad PORT does not hide a missing PUBLIC_URL).
  const problems = parsed.success ? [] : parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
  const isProduction = present.NODE_ENV === 'production';
  const provider = present.PAYMENT_PROVIDER ?? (isProduction ? 'stripe' : 'local');
  const allowTestPayments = present.ALLOW_TEST_PAYMENTS === '1' || present.ALLOW_TEST_PAYMENTS === 'true';
  const required = (name: string, when: string) => {
    if (present[name] === undefined) problems.push(`  ${name}: required when ${when}`);
  };
  if (serving && provider === 'stripe') {
    const when = present.PAYMENT_PROVIDER ? 'PAYMENT_PROVIDER=stripe' : 'NODE_ENV=production (PAYMENT_PROVIDER is stripe unless set)';
    required('STRIPE_SECRET_KEY', when);
    required('STRIPE_WEBHOOK_SECRET', when);
  }
  if (serving && isProduction && provider === 'local' && !allowTestPayments) {
    problems.push(
      '  PAYMENT_PROVIDER: local takes no money (its cards are fake), so it is refused when NODE_ENV=production. ' +
        'Use PAYMENT_PROVIDER=stripe, or set ALLOW_TEST_PAYMENTS=1 for a staging shop (every page then says TEST MODE).',
    );
  }
  if (serving && isProduction) {
    required('PUBLIC_URL', 'NODE_ENV=production');
    required('AUTH_SECRET', 'NODE_ENV=production');
    required('SMTP_URL', 'NODE_ENV=production');
  }
  if (isProduction && present.LOCAL_REFUND_FAILURES !== undefined && Number(present.LOCAL_REFUND_FAILURES) !== 0) {
    problems.push('  LOCAL_REFUND_FAILURES: a test switch that makes card refunds fail; it is refused when NODE_ENV=production.');
  }
  if (Boolean(present.S3_ACCESS_KEY_ID) !== Boolean(present.S3_SECRET_ACCESS_KEY)) {
    problems.push('  S3_SECRET_ACCESS_KEY: set both S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY, or neither');
  }
  if (present.METRICS_PORT !== undefined && present.METRICS_PORT === (present.PORT ?? '3000')) {
    problems.push('  METRICS_PORT: must differ from PORT (the metrics are never served with the shop)');
  }
  const metricsHost = present.METRICS_HOST ?? '127.0.0.1';
  if (present.METRICS_PORT !== undefined && present.METRICS_TOKEN === undefined && !isLocalInterface(metricsHost)) {
    problems.push(`  METRICS_HOST: ${metricsHost} lets other hosts reach METRICS_PORT, so METRICS_TOKEN is required (openssl rand -hex 24), or listen on 127.0.0.1`);
  }
  if (!parsed.success || problems.length > 0) throw new ConfigError(`Invalid settings:\n${problems.join('\n')}`);
  const values = parsed.data;
  const dataDir = path.resolve(values.DATA_DIR);
  const paymentProvider = values.PAYMENT_PROVIDER ?? (isProduction ? 'stripe' : 'local');
  const { S3_FORCE_PATH_STYLE, ...rest } = values;
  // The CLI reads a stored secret but makes none: '' means "not set" (cli.ts asks for it).
  const authSecret = values.AUTH_SECRET ?? (serving ? developmentSecret(dataDir) : (storedAuthSecret(dataDir) ?? ''));
  return {
    ...rest,
    PAYMENT_PROVIDER: paymentProvider,
    // A development server (dev mailbox, demo accounts) is reachable from this machine only,
    // unless HOST says otherwise.
    HOST: values.HOST ?? (isProduction ? '0.0.0.0' : '127.0.0.1'),
    s3: s3Settings(values, S3_FORCE_PATH_STYLE),
    isProduction,
    dataDir,
    AUTH_SECRET: authSecret,
    AUTH_SECRET_PREVIOUS: [...new Set([...values.AUTH_SECRET_PREVIOUS, ...values.AUTH_SECRET_NEXT])].filter((secret) => secret !== authSecret),
    webDistDir: path.join(repoRoot, 'apps/web/dist'),
    contentDir: path.join(repoRoot, 'content'),
  };
}

/** The shop's own address: PUBLIC_URL, or this machine's port. */
export function publicUrl(config: Config): string {
  return config.PUBLIC_URL ?? `http://localhost:${config.PORT}`;
}

/** The shop's origin for canonical URLs, previews and the sitemap: PUBLIC_URL, never the request's Host. */
export function shopOrigin(config: Config): string {
  return publicUrl(config).replace(/\/+$/, '');
}

/** `loopback` in TRUSTED_PROXIES: a proxy on this machine. */
export const LOOPBACK = ['127.0.0.0/8', '::1/128'];

/**
 * Parses TRUSTED_PROXIES entries (addresses or CIDR ranges, IPv4 or IPv6, or `loopback`)
 * into canonical `address/prefix` strings; a bad entry is named in the error.
 */
export function parseTrustedProxies(entries: string[]): { ranges: string[] } | { error: string } {
  const ranges: string[] = [];
  for (const entry of entries) {
    if (entry.toLowerCase() === 'loopback') {
      ranges.push(...LOOPBACK);
      continue;
    }
    const [base = '', prefixText, ...rest] = entry.split('/');
    const address = canonicalAddress(base);
    const bits = address === null ? 0 : net.isIP(address) === 4 ? 32 : 128;
    const prefix = prefixText === undefined ? bits : /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : NaN;
    if (address === null || rest.length > 0 || !(prefix >= 0 && prefix <= bits)) {
      return { error: `"${entry}" is not an IP address, a CIDR range (such as 10.0.0.0/8 or fd00::/8) or loopback` };
    }
    ranges.push(`${address}/${prefix}`);
  }
  return { ranges };
}

/**
 * An address in one canonical spelling, or null when the text is not an address: IPv6
 * compressed and lower-case, IPv4-mapped IPv6 (`::ffff:192.0.2.1`, what a dual-stack
 * socket reports) as the IPv4 address it is, brackets and zone ids dropped.
 */
export function canonicalAddress(text: string): string | null {
  let value = text.trim();
  if (value.startsWith('[') && value.endsWith(']')) value = value.slice(1, -1);
  const kind = net.isIP(value);
  if (kind === 4) return value;
  if (kind !== 6) return null;
  const zone = value.indexOf('%');
  if (zone !== -1) value = value.slice(0, zone);
  let host: string;
  try {
    host = new URL(`http://[${value}]/`).hostname.slice(1, -1);
  } catch {
    return null;
  }
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(host);
  if (mapped) {
    const high = parseInt(mapped[1]!, 16);
    const low = parseInt(mapped[2]!, 16);
    return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
  }
  return host;
}
