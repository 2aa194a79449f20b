import { UsageError } from './errors.js';

export type OutputFormat = 'json' | 'table';

export function outputFormat(value: string | undefined): OutputFormat {
  if (value === undefined || value === 'table' || value === 'json') return value ?? 'table';
  throw new UsageError(`--output must be json or table, not ${value}`);
}

/** A column of a table: its heading and how a row shows in it. */
export interface Column<Row> {
  heading: string;
  value: (row: Row) => unknown;
}

function cell(value: unknown): string {
  if (value === null || value === undefined) return '-';
  if (Array.isArray(value)) return value.map(cell).join(',');
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** Left-aligned columns two spaces apart, headings upper-cased; no trailing spaces. */
export function renderTable<Row>(rows: readonly Row[], columns: readonly Column<Row>[]): string {
  const lines = [
    columns.map((column) => column.heading.toUpperCase()),
    ...rows.map((row) => columns.map((column) => cell(column.value(row)))),
  ];
  const widths = columns.map((_, index) => Math.max(...lines.map((line) => line[index].length)));
  return lines
    .map((line) =>
      line
        .map((text, index) => text.padEnd(widths[index]))
        .join('  ')
        .trimEnd(),
    )
    .join('\n')
    .concat('\n');
}

/** A list or one record, as JSON (the API's `data`, pretty-printed) or as a table. */
export function render<Row>(
  format: OutputFormat,
  data: Row | readonly Row[],
  columns: readonly Column<Row>[],
): string {
  if (format === 'json') return `${JSON.stringify(data, null, 2)}\n`;
  return renderTable(Array.isArray(data) ? data : [data as Row], columns);
}

/** Columns named after fields of the rows, shown as they are. */
export function fields<Row>(...names: (keyof Row & string)[]): Column<Row>[] {
  return names.map((name) => ({ heading: name, value: (row: Row) => row[name] }));
}
