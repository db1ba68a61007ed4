import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

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
  HOST: z.string().default('0.0.0.0'),
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
  BLOCKED_EMAIL_DOMAINS: nameList('mailinator.com,guerrillamail.com'),
  SIGNUP_FOLLOW_USERNAMES: nameList('streetflavor,spndat,thedatchain,tdcmarket'),
  APP_DEEP_LINK_SCHEME: z
    .string()
    .regex(/^[a-z][a-z0-9+.-]*$/, 'must be a URL scheme such as mydat')
    .default('mydat'),
  AUTH_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  SIGNUP_RATE_LIMIT: z.coerce.number().int().positive().default(10),
  SIGNIN_RATE_LIMIT: z.coerce.number().int().positive().default(10),
  UPLOAD_MAX_BYTES: z.coerce.number().int().positive().default(20 * 1024 * 1024),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export type Env = z.infer<typeof envSchema>;

export interface Config extends Omit<Env, 'AUTH_SECRET' | 'PAYMENT_PROVIDER'> {
  /** Signs sessions and tokens. */
  AUTH_SECRET: string;
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

/** Outside production: a random secret kept in DATA_DIR, so sessions survive restarts. */
function developmentSecret(dataDir: string): string {
  const file = path.join(dataDir, 'auth-secret');
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch {
    fs.mkdirSync(dataDir, { recursive: true });
    const secret = randomBytes(32).toString('base64url');
    fs.writeFileSync(file, secret, { mode: 0o600 });
    return secret;
  }
}

// Three levels up from apps/server/src (the sources) and from apps/server/dist (the bundle).
const repoRoot = path.resolve(import.meta.dirname, '../../..');

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
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
  if (provider === 'stripe') {
    const when = present.PAYMENT_PROVIDER ? 'PAYMENT_PROVIDER=stripe' : 'NODE_ENV=production (PAYMENT_PROVIDER is stripe unless set)';
    required('STRIPE_SECRET_KEY', when);
    required('STRIPE_WEBHOOK_SECRET', when);
  }
  if (isProduction && provider === 'local' && !allowTestPayments) {
    problems.push(
      '  PAYMENT_PROVIDER: local takes no money (its cards are fake), so it is refused when NODE_ENV=production. ' +
        'Use PAYMENT_PROVIDER=stripe, or set ALLOW_TEST_PAYMENTS=1 for a staging shop (every page then says TEST MODE).',
    );
  }
  if (isProduction) {
    required('PUBLIC_URL', 'NODE_ENV=production');
    required('AUTH_SECRET', 'NODE_ENV=production');
    required('SMTP_URL', 'NODE_ENV=production');
  }
  if (!parsed.success || problems.length > 0) throw new ConfigError(`Invalid settings:\n${problems.join('\n')}`);
  const values = parsed.data;
  const dataDir = path.resolve(values.DATA_DIR);
  const paymentProvider = values.PAYMENT_PROVIDER ?? (isProduction ? 'stripe' : 'local');
  return {
    ...values,
    PAYMENT_PROVIDER: paymentProvider,
    isProduction,
    dataDir,
    AUTH_SECRET: values.AUTH_SECRET ?? developmentSecret(dataDir),
    webDistDir: path.join(repoRoot, 'apps/web/dist'),
    contentDir: path.join(repoRoot, 'content'),
  };
}
