/**
 * The label's list (issue 37 part 6, decision 078): the export's columns, and the import of fans
 * who consented elsewhere. Pure: a streaming CSV reader (RFC 4180, no dependency), the shapes of
 * file it accepts (Bandcamp's mailing-list export among them) and each row's verdict.
 */

/** The import's limits: the file's size and its rows (without the header). */
export const AUDIENCE_IMPORT_LIMITS = { maxBytes: 20 * 1024 * 1024, maxRows: 100_000 } as const;

export const AUDIENCE_EXPORT_COLUMNS = ['email', 'name', 'country', 'consented_at', 'consent_source', 'follows'] as const;

export const AUDIENCE_MESSAGES = {
  tooBig: 'The file is larger than 20 MB: split it and import each part.',
  tooManyRows: 'The file has more than 100,000 rows: split it and import each part.',
  noHeader: 'The file has no header row: its first line must name the columns (email, and a consent date such as "date added").',
  noEmailColumn: 'The file has no email column: name one "email" (or "email address").',
  noDateColumn: 'The file has no consent date column: name one "date added", "consented_at" or "consent date".',
  notCsv: 'Send the file as CSV (text/csv).',
  // Per row.
  brokenRow: 'Broken row: its quotes do not close or it has more cells than the header.',
  badEmail: 'Not an email address.',
  duplicate: (line: number) => `Duplicate of the address on line ${line}.`,
  noConsent: 'No consent: the row says no.',
  noDate: 'No consent date: the file must say when this fan consented.',
  badDate: 'The consent date cannot be read (or lies in the future).',
  withdrawn: 'This address withdrew its consent here: an import does not give it back.',
} as const;

export interface AudienceImportReport {
  rows: number;
  added: number;
  merged: number;
  refused: number;
  /** Each refused row: its line in the file (the header is line 1), the address if readable, and why. Up to 1,000 listed. */
  refusals: { line: number; email: string; reason: string }[];
}

/** How many refusals a report lists (it counts them all). */
export const REFUSALS_LISTED = 1000;

/**
 * A streaming CSV reader: feed it text as it arrives, take the records it completed. Quoted
 * cells may hold commas, quotes (doubled) and line breaks; CRLF, LF and CR end a record; a BOM
 * is dropped. A record whose quote never closes is reported broken at the end.
 */
export class CsvReader {
  private cell = '';
  private record: string[] = [];
  private quoted = false;
  /** The previous character was a quote inside a quoted cell (an escaped quote or its end). */
  private quotePending = false;
  private afterQuote = false;
  private started = false;
  private pendingCr = false;
  /** A cell had text after its closing quote: the record is broken. */
  private malformed = false;
  /** Lines consumed so far (for the line number of each record's start). */
  private line = 1;
  private recordLine = 1;

  push(text: string): { cells: string[]; line: number; broken: boolean }[] {
    const out: { cells: string[]; line: number; broken: boolean }[] = [];
    let start = 0;
    if (!this.started && text.length > 0) {
      this.started = true;
      if (text.charCodeAt(0) === 0xfeff) start = 1;
    }
    for (let i = start; i < text.length; i++) {
      const c = text[i]!;
      if (this.pendingCr) {
        this.pendingCr = false;
        if (c === '\n') continue;
      }
      if (this.quoted) {
        if (this.quotePending) {
          this.quotePending = false;
          if (c === '"') {
            this.cell += '"';
            continue;
          }
          this.quoted = false;
          this.afterQuote = true;
          // Falls through: the character after the closing quote.
        } else if (c === '"') {
          this.quotePending = true;
          continue;
        } else {
          if (c === '\n') this.line++;
          this.cell += c;
          continue;
        }
      }
      if (c === ',') {
        this.record.push(this.cell);
        this.cell = '';
        this.afterQuote = false;
      } else if (c === '\n' || c === '\r') {
        this.record.push(this.cell);
        out.push({ cells: this.record, line: this.recordLine, broken: this.malformed });
        this.record = [];
        this.cell = '';
        this.afterQuote = false;
        this.malformed = false;
        this.line++;
        this.recordLine = this.line;
        if (c === '\r') this.pendingCr = true;
      } else if (c === '"' && this.cell === '' && !this.afterQuote) {
        this.quoted = true;
      } else {
        if (this.afterQuote) this.malformed = true;
        this.cell += c;
      }
    }
    return out;
  }

  /** The last record (a file need not end with a line break); an unclosed quote makes it broken. */
  end(): { cells: string[]; line: number; broken: boolean }[] {
    if (this.quoted && this.quotePending) {
      this.quoted = false;
      this.quotePending = false;
      this.afterQuote = true;
    }
    if (this.quoted) {
      const record = { cells: [...this.record, this.cell], line: this.recordLine, broken: true };
      this.quoted = false;
      return [record];
    }
    if (this.cell === '' && this.record.length === 0 && !this.afterQuote) return [];
    const record = { cells: [...this.record, this.cell], line: this.recordLine, broken: this.malformed };
    this.record = [];
    this.cell = '';
    return [record];
  }
}

/** Where the import finds each field: column indexes of the header (-1: absent). */
export interface ImportColumns {
  email: number;
  name: number;
  firstName: number;
  lastName: number;
  country: number;
  date: number;
  /** A yes/no column (consent, opted in, subscribed): a row saying no is refused. */
  consent: number;
  width: number;
}

const HEADER_NAMES = {
  email: ['email', 'email address', 'e-mail', 'e-mail address', 'mail'],
  name: ['fullname', 'full name', 'name'],
  firstName: ['firstname', 'first name', 'given name'],
  lastName: ['lastname', 'last name', 'family name', 'surname'],
  country: ['country', 'country code'],
  date: [
    'date added',
    'consented_at',
    'consented at',
    'consent date',
    'consent_date',
    'consent time',
    'opted in at',
    'optin_time',
    'subscribed at',
    'date subscribed',
    'signup date',
    'created_at',
  ],
  consent: ['consent', 'consented', 'marketing consent', 'opted in', 'opt in', 'subscribed', 'accepts marketing'],
} as const;

const normaliseHeader = (cell: string) => cell.trim().toLowerCase().replace(/\s+/g, ' ');

/**
 * The columns of a header row. Accepted shapes: Bandcamp's mailing-list export ("email",
 * "fullname", "firstname", "lastname", "date added", "country", …), this shop's own export
 * (email, name, country, consented_at, …) and any file naming an email and a consent date
 * column among the names above. An error sentence when it cannot be read.
 */
export function readImportHeader(cells: string[]): ImportColumns | string {
  const names = cells.map(normaliseHeader);
  const find = (wanted: readonly string[]) => names.findIndex((name) => wanted.includes(name));
  const columns: ImportColumns = {
    email: find(HEADER_NAMES.email),
    name: find(HEADER_NAMES.name),
    firstName: find(HEADER_NAMES.firstName),
    lastName: find(HEADER_NAMES.lastName),
    country: find(HEADER_NAMES.country),
    date: find(HEADER_NAMES.date),
    consent: find(HEADER_NAMES.consent),
    width: cells.length,
  };
  if (names.every((name) => name === '')) return AUDIENCE_MESSAGES.noHeader;
  if (columns.email < 0) return names.some((name) => name.includes('@')) ? AUDIENCE_MESSAGES.noHeader : AUDIENCE_MESSAGES.noEmailColumn;
  if (columns.date < 0) return AUDIENCE_MESSAGES.noDateColumn;
  return columns;
}

// Deliberately plain: one @, no spaces, a dot in the domain; at most 254 characters (RFC 5321).
const EMAIL = /^[^\s@"<>(),;:]+@[^\s@"<>(),;:]+\.[^\s@"<>(),;:]+$/;

export const normaliseAudienceEmail = (email: string) => email.trim().toLowerCase();

export function isMailAddress(email: string): boolean {
  return email.length <= 254 && EMAIL.test(email);
}

const NO = new Set(['no', 'n', 'false', '0', 'unsubscribed', 'opted out', 'off']);

const MONTHS: Record<string, number> = { jan: 0, feb: 1, mar: 2, apr: 3, may: 4, jun: 5, jul: 6, aug: 7, sep: 8, oct: 9, nov: 10, dec: 11 };

/**
 * A consent date as files write it: ISO 8601 ("2021-03-14", "2021-03-14T18:15:42Z",
 * "2021-03-14 18:15:42 UTC"), "14 Mar 2021 18:15:42 GMT", "Mar 14, 2021", or "3/14/2021"
 * (month first, as Bandcamp's US exports). A time without a zone is UTC. Null when unreadable.
 */
export function parseConsentDate(text: string): Date | null {
  const value = text.trim();
  if (!value) return null;
  let match = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?)?\s*(Z|UTC|GMT|[+-]\d{2}:?\d{2})?$/i.exec(value);
  if (match) {
    const [, y, mo, d, h = '0', mi = '0', s = '0', zone] = match;
    let ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
    if (zone && /^[+-]/.test(zone)) {
      const sign = zone.startsWith('-') ? -1 : 1;
      const digits = zone.slice(1).replace(':', '');
      ms -= sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2))) * 60_000;
    }
    return valid(ms, Number(mo) - 1, Number(d), Number(y));
  }
  match = /^(\d{1,2})\s+([a-z]{3})[a-z]*\.?\s+(\d{4})(?:\s+(\d{1,2}):(\d{2})(?::(\d{2}))?)?(?:\s*(UTC|GMT|Z))?$/i.exec(value);
  if (match) {
    const [, d, mon, y, h = '0', mi = '0', s = '0'] = match;
    const month = MONTHS[mon!.toLowerCase()];
    if (month === undefined) return null;
    return valid(Date.UTC(Number(y), month, Number(d), Number(h), Number(mi), Number(s)), month, Number(d), Number(y));
  }
  match = /^([a-z]{3})[a-z]*\.?\s+(\d{1,2}),?\s+(\d{4})(?:\s+(\d{1,2}):(\d{2})(?::(\d{2}))?)?(?:\s*(UTC|GMT|Z))?$/i.exec(value);
  if (match) {
    const [, mon, d, y, h = '0', mi = '0', s = '0'] = match;
    const month = MONTHS[mon!.toLowerCase()];
    if (month === undefined) return null;
    return valid(Date.UTC(Number(y), month, Number(d), Number(h), Number(mi), Number(s)), month, Number(d), Number(y));
  }
  match = /^(\d{1,2})\/(\d{1,2})\/(\d{4})(?:\s+(\d{1,2}):(\d{2})(?::(\d{2}))?)?$/.exec(value);
  if (match) {
    const [, mo, d, y, h = '0', mi = '0', s = '0'] = match;
    return valid(Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s)), Number(mo) - 1, Number(d), Number(y));
  }
  return null;
}

/** A real calendar day (not 31 February) between 1990 and a day from now. */
function valid(ms: number, month: number, day: number, year: number): Date | null {
  const date = new Date(ms);
  if (Number.isNaN(ms) || year < 1990 || month < 0 || month > 11 || day < 1 || day > 31) return null;
  if (ms > Date.now() + 86_400_000) return null;
  const check = new Date(Date.UTC(year, month, day));
  if (check.getUTCDate() !== day) return null;
  return date;
}

export interface ImportRow {
  email: string;
  name: string;
  country: string | null;
  consentedAt: Date;
}

/** One record's verdict: the fan to record, or why it is refused (duplicates are the caller's: it knows the lines before). */
export function readImportRow(columns: ImportColumns, record: { cells: string[]; broken: boolean }): ImportRow | { email: string; reason: string } {
  const cell = (index: number) => (index >= 0 ? (record.cells[index] ?? '').trim() : '');
  const email = normaliseAudienceEmail(cell(columns.email));
  if (record.broken || record.cells.length > columns.width) return { email, reason: AUDIENCE_MESSAGES.brokenRow };
  if (!isMailAddress(email)) return { email, reason: AUDIENCE_MESSAGES.badEmail };
  if (columns.consent >= 0 && NO.has(cell(columns.consent).toLowerCase())) return { email, reason: AUDIENCE_MESSAGES.noConsent };
  const dateText = cell(columns.date);
  if (!dateText) return { email, reason: AUDIENCE_MESSAGES.noDate };
  const consentedAt = parseConsentDate(dateText);
  if (!consentedAt) return { email, reason: AUDIENCE_MESSAGES.badDate };
  const name = (cell(columns.name) || [cell(columns.firstName), cell(columns.lastName)].filter(Boolean).join(' ')).slice(0, 200);
  const country = cell(columns.country).slice(0, 100) || null;
  return { email, name, country, consentedAt };
}

/** A blank line (every cell empty) is skipped, not refused. */
export const isBlankRecord = (cells: string[]) => cells.every((cell) => cell.trim() === '');
