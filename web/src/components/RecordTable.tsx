import type { ReactNode } from 'react';

/** One column: its heading and what a row shows in it. */
export interface Column<Row> {
  header: ReactNode;
  cell(row: Row): ReactNode;
  className?: string;
  testId?: string;
}

/** `data-*` attributes a row carries, so a test or a script can find it by its id. */
export type RowData = Record<`data-${string}`, string>;

/**
 * The app's tables of records (datasets, tasks, snapshots, exports): a labelled table that scrolls inside itself
 * on a narrow screen, a row per record; `empty` is said when there is none.
 */
export function RecordTable<Row>({
  label,
  columns,
  rows,
  rowKey,
  rowData,
  empty,
}: {
  label: string;
  columns: Column<Row>[];
  rows: readonly Row[];
  rowKey(row: Row): string;
  rowData?(row: Row): RowData;
  empty?: ReactNode;
}) {
  if (rows.length === 0) return empty ? <p>{empty}</p> : null;
  return (
    <div className="table-scroll">
      <table className="table" aria-label={label}>
        <thead>
          <tr>
            {columns.map((column, index) => (
              <th key={index}>{column.header}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={rowKey(row)} {...rowData?.(row)}>
              {columns.map((column, index) => (
                <td key={index} className={column.className} data-testid={column.testId}>
                  {column.cell(row)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** A dataset's, task's or export's status as a coloured badge (styles.css `.status-<STATUS>`), in words `children` if given. */
export function StatusBadge({ status, testId, live, children }: { status: string; testId?: string; live?: boolean; children?: ReactNode }) {
  return (
    <span className={`status status-${status.replace(' ', '-')}`} data-testid={testId} aria-live={live ? 'polite' : undefined}>
      {children ?? status}
    </span>
  );
}
