/** A property of a database error, also when an ORM or a driver wrapped it in `cause`s. */
function fromCauses(error: unknown, read: (value: object) => string | undefined): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth += 1) {
    const found = read(current);
    if (found !== undefined) return found;
    current = 'cause' in current ? current.cause : undefined;
  }
  return undefined;
}

/** The SQLSTATE of a database error (e.g. '23505' unique violation), also when an ORM wrapped it. */
export function sqlState(error: unknown): string | undefined {
  return fromCauses(error, (value) => ('code' in value && typeof value.code === 'string' && /^[0-9A-Z]{5}$/.test(value.code) ? value.code : undefined));
}

/** The constraint a database error names, also when an ORM wrapped it. */
export function constraintOf(error: unknown): string | undefined {
  return fromCauses(error, (value) => ('constraint' in value && typeof value.constraint === 'string' ? value.constraint : undefined));
}
