import type { Key, ReactNode } from 'react';

/** One column of a DataTable: its heading and what each row shows in it. */
export interface DataColumn<T> {
  header: string;
  cell: (row: T) => ReactNode;
  /** The cell names its row (a `th scope="row"`), as the first column of a report does. */
  rowHeader?: boolean;
  className?: string;
}

interface DataTableProps<T> {
  columns: readonly DataColumn<T>[];
  rows: readonly T[];
  rowKey: (row: T) => Key;
  caption?: string;
  className?: string;
  labelledBy?: string;
}

/** A plain table of rows under column headings: the console's sales, a DAT's editions, the wallet's history. */
export function DataTable<T>({ columns, rows, rowKey, caption, className, labelledBy }: DataTableProps<T>) {
  return (
    <table className={className} aria-labelledby={labelledBy}>
      {caption ? <caption>{caption}</caption> : null}
      <thead>
        <tr>
          {columns.map((column) => (
            <th key={column.header} scope="col">
              {column.header}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={rowKey(row)}>
            {columns.map((column) =>
              column.rowHeader ? (
                <th key={column.header} scope="row">
                  {column.cell(row)}
                </th>
              ) : (
                <td key={column.header} className={column.className}>
                  {column.cell(row)}
                </td>
              ),
            )}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
