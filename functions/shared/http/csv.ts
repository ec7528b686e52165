import type { HttpResult } from './types';

/**
 * CSV exports (events, cohort members): records flattened into dotted columns, every cell and
 * header escaped against CSV injection.
 */

/** Nested objects and lists as dotted columns (`properties.$set.email`, `elements.0.tag_name`). */
function flatten(value: unknown, prefix: string, into: Map<string, unknown>): void {
  if (value !== null && typeof value === 'object' && Object.keys(value).length > 0) {
    for (const [key, inner] of Object.entries(value)) flatten(inner, prefix ? `${prefix}.${key}` : key, into);
  } else {
    into.set(prefix, value);
  }
}

/** First characters a spreadsheet reads as the start of a formula (OWASP: CSV injection). */
const formulaStarts = new Set(['=', '+', '-', '@', '\t', '\r']);

/**
 * Text as one CSV field: a leading formula character is neutralised with `'` (so `=HYPERLINK(…)` sent
 * as a property shows as text, not as a live formula, when the export is opened), then quoted where
 * needed (RFC 4180).
 */
function csvText(text: string): string {
  const safe = formulaStarts.has(text.charAt(0)) ? `'${text}` : text;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  // Numbers and booleans stay as they are: `-5` is a number in every spreadsheet, never a formula.
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return csvText(typeof value === 'string' ? value : JSON.stringify(value));
}

/**
 * The most columns a CSV export has. PostHog's exports have a column for every key of every row; the
 * keys are the senders' (anyone with a project token), so one event with 10,000 properties would give
 * every row 10,000 cells. The most common columns are kept (README, Known limits).
 */
export const maxCsvColumns = 1_000;

export interface CsvOptions {
  /** Columns first, in this order, whether or not a record has them. */
  readonly leading?: readonly string[];
  readonly omit?: readonly string[];
  /** The body's size in bytes: records past the first stop where it would pass this. */
  readonly maxBytes?: number;
}

export interface Csv {
  readonly body: string;
  /** How many records, from the first, the body holds: all of them unless `maxBytes` cut it. */
  readonly rows: number;
  /** How many columns some record had and the export left out (`maxCsvColumns`). */
  readonly omittedColumns: number;
}

/**
 * A row of cells by column, as a line with a field for every column of `position`. Most rows leave
 * most columns empty: their commas are written in runs, not cell by cell.
 */
function csvLine(cells: ReadonlyMap<string, string>, position: ReadonlyMap<string, number>): string {
  const placed = [...cells].map(([column, cell]) => [position.get(column)!, cell] as const);
  placed.sort((a, b) => a[0] - b[0]);
  let text = '';
  let at = 0;
  for (const [index, cell] of placed) {
    text += ','.repeat(index - at) + cell;
    at = index;
  }
  return text + ','.repeat(Math.max(position.size - 1 - at, 0));
}

/**
 * The columns kept: the leading ones, then the others by how many records have them (the first seen
 * first among equals) up to `maxCsvColumns`. One count over the records' keys.
 */
function keptColumns(
  rows: readonly Map<string, unknown>[],
  leading: readonly string[],
  omit: readonly string[],
) {
  const skipped = new Set([...leading, ...omit]);
  const counts = new Map<string, number>();
  for (const row of rows)
    for (const column of row.keys())
      if (!skipped.has(column)) counts.set(column, (counts.get(column) ?? 0) + 1);
  // A stable sort: equal counts keep the order they were first seen in.
  const ranked = [...counts].sort((a, b) => b[1] - a[1]).map(([column]) => column);
  const room = Math.max(maxCsvColumns - leading.length, 0);
  return { kept: new Set(ranked.slice(0, room)), omitted: Math.max(ranked.length - room, 0) };
}

/**
 * A header row and one row per record, nested values flattened into dotted columns: `leading`
 * columns first, then the others sorted (djangorestframework-csv's order), `omit`ted ones left out.
 * With `maxBytes`, as many records as fit (at least one): each row's size is added up as its cells
 * are escaped, once (a cell costs its bytes, each column a comma on every line), and only the rows
 * kept are written, with only the columns they have.
 */
export function toCsv(records: readonly object[], options: CsvOptions = {}): Csv {
  const { leading = [], omit = [], maxBytes = Number.POSITIVE_INFINITY } = options;
  const flat = records.map((record) => {
    const row = new Map<string, unknown>();
    flatten(record, '', row);
    return row;
  });
  const { kept, omitted } = keptColumns(flat, leading, omit);
  const first = new Set(leading);
  // Column names carry property keys, which the sender chose: escaped like any other cell.
  const used = new Map<string, string>(leading.map((column) => [column, csvText(column)]));
  let headerBytes = [...used.values()].reduce((sum, cell) => sum + Buffer.byteLength(cell), 0);
  let cellBytes = 0;
  const rows: Map<string, string>[] = [];
  for (const row of flat) {
    const cells = new Map<string, string>();
    let bytes = 0;
    const added: [string, string][] = [];
    for (const [column, value] of row) {
      if (!kept.has(column) && !first.has(column)) continue;
      const cell = csvCell(value);
      cells.set(column, cell);
      bytes += Buffer.byteLength(cell);
      if (!used.has(column)) added.push([column, csvText(column)]);
    }
    const header = added.reduce((sum, [, text]) => sum + Buffer.byteLength(text), 0);
    // Every line (the header, the rows so far and this one) has a comma between cells, then CRLF.
    const separators = (rows.length + 2) * (Math.max(used.size + added.length - 1, 0) + 2);
    if (rows.length > 0 && headerBytes + header + cellBytes + bytes + separators > maxBytes) break;
    for (const [column, text] of added) used.set(column, text);
    headerBytes += header;
    cellBytes += bytes;
    rows.push(cells);
  }
  const columns = [...leading, ...[...used.keys()].filter((column) => !first.has(column)).sort()];
  const position = new Map(columns.map((column, i) => [column, i]));
  const lines = [
    columns.map((column) => used.get(column)!).join(','),
    ...rows.map((cells) => csvLine(cells, position)),
  ];
  return { body: `${lines.join('\r\n')}\r\n`, rows: rows.length, omittedColumns: omitted };
}

/**
 * A CSV export as a download: browsers and `curl -OJ` save it as `filename` rather than show it
 * (PostHog's exports are attachments too). `X-Csv-Omitted-Columns` says how many columns the export
 * left out, when it left some out.
 */
export function csvResponse(csv: Pick<Csv, 'body' | 'omittedColumns'>, filename: string): HttpResult {
  return {
    statusCode: 200,
    headers: {
      'Content-Type': 'text/csv; charset=utf-8',
      'Content-Disposition': `attachment; filename="${filename}"`,
      ...(csv.omittedColumns > 0 ? { 'X-Csv-Omitted-Columns': String(csv.omittedColumns) } : {}),
    },
    body: csv.body,
  };
}
