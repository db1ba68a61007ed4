import { createHash } from 'node:crypto';
import type { drizzleAdapter } from 'better-auth/adapters/drizzle';

/**
 * Session tokens are stored hashed (issue 25, security 17; decision 043): the `session`
 * table holds SHA-256 of each token, so a copy of the table (a backup, a leaked dump) holds
 * no session even together with AUTH_SECRET. Better Auth 1.7 has no such option (it has one
 * for verification values only), so its database adapter is wrapped: a token the library
 * writes or looks up is hashed on the way in, and a row read by its token is handed back
 * with the token the library asked for. The library never reads a session's token from a
 * row it found by anything else to set a cookie (sessions are listed, revoked one by one
 * or updated only by token, and those endpoints are closed anyway, decision 018).
 */
export function hashSessionToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

type AdapterFactory = ReturnType<typeof drizzleAdapter>;
type Adapter = ReturnType<AdapterFactory>;
interface Where {
  field: string;
  value: unknown;
  operator?: string;
}
type Row = Record<string, unknown> | null | undefined;

const isSession = (model: string) => model === 'session';

/** The where clause with session tokens hashed, and the raw token of each hash. */
function hashedWhere(where: Where[] | undefined): { where: Where[] | undefined; raw: Map<string, string> } {
  const raw = new Map<string, string>();
  const hash = (value: unknown) => {
    if (typeof value !== 'string') return value;
    const hashed = hashSessionToken(value);
    raw.set(hashed, value);
    return hashed;
  };
  const mapped = where?.map((clause) => (clause.field === 'token' ? { ...clause, value: Array.isArray(clause.value) ? clause.value.map(hash) : hash(clause.value) } : clause));
  return { where: mapped, raw };
}

function restore<T extends Row>(row: T, raw: Map<string, string>): T {
  if (!row || typeof row.token !== 'string') return row;
  const token = raw.get(row.token);
  return token === undefined ? row : { ...row, token };
}

export function withHashedSessionTokens(factory: AdapterFactory): AdapterFactory {
  const wrap = (adapter: Adapter): Adapter => ({
    ...adapter,
    transaction: (callback) => adapter.transaction((trx) => callback(wrap(trx as Adapter))),
    async create(input) {
      const token: unknown = (input.data as Record<string, unknown>).token;
      if (!isSession(input.model) || typeof token !== 'string') return adapter.create(input);
      const created = await adapter.create({ ...input, data: { ...input.data, token: hashSessionToken(token) } });
      return restore(created as Row, new Map([[hashSessionToken(token), token]])) as never;
    },
    async findOne(input) {
      if (!isSession(input.model)) return adapter.findOne(input);
      const { where, raw } = hashedWhere(input.where as Where[]);
      return restore((await adapter.findOne({ ...input, where: where as typeof input.where })) as Row, raw) as never;
    },
    async findMany(input) {
      if (!isSession(input.model)) return adapter.findMany(input);
      const { where, raw } = hashedWhere(input.where as Where[] | undefined);
      const rows = await adapter.findMany({ ...input, where: where as typeof input.where });
      return rows.map((row) => restore(row as Row, raw)) as never;
    },
    async update(input) {
      if (!isSession(input.model)) return adapter.update(input);
      const { where, raw } = hashedWhere(input.where as Where[]);
      const update = typeof (input.update as Row)?.token === 'string' ? { ...input.update, token: hashSessionToken((input.update as { token: string }).token) } : input.update;
      return restore((await adapter.update({ ...input, where: where as typeof input.where, update })) as Row, raw) as never;
    },
    async updateMany(input) {
      if (!isSession(input.model)) return adapter.updateMany(input);
      return adapter.updateMany({ ...input, where: hashedWhere(input.where as Where[]).where as typeof input.where });
    },
    async delete(input) {
      if (!isSession(input.model)) return adapter.delete(input);
      return adapter.delete({ ...input, where: hashedWhere(input.where as Where[]).where as typeof input.where });
    },
    async deleteMany(input) {
      if (!isSession(input.model)) return adapter.deleteMany(input);
      return adapter.deleteMany({ ...input, where: hashedWhere(input.where as Where[]).where as typeof input.where });
    },
    async count(input) {
      if (!isSession(input.model)) return adapter.count(input);
      return adapter.count({ ...input, where: hashedWhere(input.where as Where[] | undefined).where as typeof input.where });
    },
  });
  return (options) => wrap(factory(options));
}
