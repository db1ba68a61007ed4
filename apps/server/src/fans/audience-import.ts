import {
  AUDIENCE_IMPORT_LIMITS,
  AUDIENCE_MESSAGES,
  CsvReader,
  isBlankRecord,
  readImportHeader,
  readImportRow,
  REFUSALS_LISTED,
  type AudienceImportReport,
  type ImportColumns,
  type ImportRow,
} from '@storefront/domain/audience.ts';
import { AppError } from '../errors.ts';

/**
 * Reads an import file as it arrives (decision 078): at most 20 MB and 100,000 rows, decoded as
 * UTF-8 and parsed a chunk at a time. Each row is judged (a broken row, a bad address, no
 * consent, no or unreadable date: refused with the reason), and an address seen on an earlier
 * line is a duplicate (refused, naming that line). What is left is recorded by recordImport.
 */
export async function readImportFile(body: AsyncIterable<Uint8Array | string>, limits = AUDIENCE_IMPORT_LIMITS) {
  const reader = new CsvReader();
  const decoder = new TextDecoder('utf-8');
  const report: AudienceImportReport = { rows: 0, added: 0, merged: 0, refused: 0, refusals: [] };
  const rows: (ImportRow & { line: number })[] = [];
  const seen = new Map<string, number>();
  let columns: ImportColumns | null = null;
  let bytes = 0;

  const refuse = (line: number, email: string, reason: string) => {
    report.refused += 1;
    if (report.refusals.length < REFUSALS_LISTED) report.refusals.push({ line, email, reason });
  };
  const take = (records: { cells: string[]; line: number; broken: boolean }[]) => {
    for (const record of records) {
      if (!columns) {
        const header = readImportHeader(record.cells);
        if (typeof header === 'string') throw new AppError('invalid-argument', header);
        columns = header;
        continue;
      }
      if (!record.broken && isBlankRecord(record.cells)) continue;
      report.rows += 1;
      if (report.rows > limits.maxRows) throw new AppError('invalid-argument', AUDIENCE_MESSAGES.tooManyRows);
      const verdict = readImportRow(columns, record);
      if ('reason' in verdict) {
        refuse(record.line, verdict.email, verdict.reason);
        continue;
      }
      const first = seen.get(verdict.email);
      if (first !== undefined) {
        refuse(record.line, verdict.email, AUDIENCE_MESSAGES.duplicate(first));
        continue;
      }
      seen.set(verdict.email, record.line);
      rows.push({ ...verdict, line: record.line });
    }
  };

  for await (const chunk of body) {
    bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.byteLength;
    if (bytes > limits.maxBytes) throw new AppError('invalid-argument', AUDIENCE_MESSAGES.tooBig);
    take(reader.push(typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true })));
  }
  take(reader.push(decoder.decode()));
  take(reader.end());
  if (!columns) throw new AppError('invalid-argument', AUDIENCE_MESSAGES.noHeader);
  return { report, rows };
}
