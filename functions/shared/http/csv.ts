import type { HttpResult } from './types';

/**
 * CSV exports (events, cohort members): records flattened into dotted columns, every cell and
 * header escaped against CSV injection.
 */

/**
 * The dotted columns of an export (`properties.$set.email`, `elements.0.tag_name`), each numbered
 * once in the order first seen. A nested key is looked up under its parent's column, so a cell costs
 * one map lookup rather than a new string; two paths that spell one column (`{"a.b": 1}` and
 * `{"a": {"b": 1}}`) share its number.
 */
class Columns {
  readonly names: string[] = [];
  private readonly byName = new Map<string, number>();
  private readonly top = new Map<string, number>();
  /** Per column: its nested keys' columns (built on first sight). */
  private readonly children: (Map<string, number> | undefined)[] = [];
  /** Per column: the last record (numbered from 1) that had it, and its place among that record's cells. */
  readonly lastRecord: number[] = [];
  readonly slot: number[] = [];

  /** The column of `key` under `parent` (-1: the record itself). */
  child(parent: number, key: string): number {
    const under = parent < 0 ? this.top : (this.children[parent] ??= new Map<string, number>());
    let column = under.get(key);
    if (column === undefined) {
      // An empty prefix adds no dot, as a record's own keys have none.
      const prefix = parent < 0 ? '' : this.names[parent]!;
      const name = prefix ? `${prefix}.${key}` : key;
      column = this.byName.get(name);
      if (column === undefined) {
        column = this.names.length;
        this.names.push(name);
        this.byName.set(name, column);
        this.children.push(undefined);
        this.lastRecord.push(0);
        this.slot.push(0);
      }
      under.set(key, column);
    }
    return column;
  }
}

/** A record's leaves: their columns and values, in the order a walk of the record meets them. */
interface FlatRecord {
  readonly columns: number[];
  readonly values: unknown[];
}

/**
 * Nested objects and lists as dotted columns; an empty object or list is a value. A column met twice
 * in one record (two spellings of it) keeps its first place and its last value.
 */
function flatten(value: unknown, parent: number, record: number, columns: Columns, into: FlatRecord): void {
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value);
    if (keys.length > 0) {
      const object = value as Record<string, unknown>;
      for (const key of keys) flatten(object[key], columns.child(parent, key), record, columns, into);
      return;
    }
  }
  // An empty record is one value, in the column named by the empty path.
  const column = parent < 0 ? columns.child(-1, '') : parent;
  if (columns.lastRecord[column] === record) {
    into.values[columns.slot[column]!] = value;
    return;
  }
  columns.lastRecord[column] = record;
  columns.slot[column] = into.columns.length;
  into.columns.push(column);
  into.values.push(value);
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
 * A row's fields, appended to `out`, from its (position, text) cells, with a field for every one of
 * `width` columns. Most rows leave most columns empty: their commas are written in runs, not cell by
 * cell. Pieces rather than a line: the body is joined from them once.
 */
function csvLine(cells: (readonly [number, string])[], width: number, out: string[]): void {
  cells.sort((a, b) => a[0] - b[0]);
  let at = 0;
  for (const [index, cell] of cells) {
    if (index > at) out.push(','.repeat(index - at));
    out.push(cell);
    at = index;
  }
  out.push(`${','.repeat(Math.max(width - 1 - at, 0))}\r\n`);
}

/**
 * The columns kept besides the leading ones: the others by how many records have them (the first
 * seen first among equals), up to `maxCsvColumns` in all. One count over the records' columns.
 */
function keptColumns(
  records: readonly FlatRecord[],
  columns: Columns,
  skipped: ReadonlySet<number>,
  leading: number,
) {
  const counts = new Int32Array(columns.names.length);
  for (const record of records) for (const column of record.columns) counts[column]! += 1;
  const ranked: number[] = [];
  for (let column = 0; column < counts.length; column++)
    if (counts[column]! > 0 && !skipped.has(column)) ranked.push(column);
  // Columns are numbered in the order first seen, so equal counts keep that order.
  ranked.sort((a, b) => counts[b]! - counts[a]! || a - b);
  const room = Math.max(maxCsvColumns - leading, 0);
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
  const columns = new Columns();
  const first = leading.map((name) => columns.child(-1, name));
  const firstSet = new Set(first);
  const skipped = new Set([...first, ...omit.map((name) => columns.child(-1, name))]);
  const flat = records.map((record, i) => {
    const row: FlatRecord = { columns: [], values: [] };
    flatten(record, -1, i + 1, columns, row);
    return row;
  });
  const { kept, omitted } = keptColumns(flat, columns, skipped, leading.length);
  // Column names carry property keys, which the sender chose: escaped like any other cell.
  const header: (string | undefined)[] = [];
  for (const column of first) header[column] = csvText(columns.names[column]!);
  let used = first.length;
  let headerBytes = first.reduce((sum, column) => sum + Buffer.byteLength(header[column]!), 0);
  let cellBytes = 0;
  const rows: { readonly columns: number[]; readonly cells: string[] }[] = [];
  for (const row of flat) {
    const cells: string[] = [];
    const rowColumns: number[] = [];
    let bytes = 0;
    const added: [number, string][] = [];
    for (let i = 0; i < row.columns.length; i++) {
      const column = row.columns[i]!;
      if (!kept.has(column) && !firstSet.has(column)) continue;
      const cell = csvCell(row.values[i]);
      rowColumns.push(column);
      cells.push(cell);
      bytes += Buffer.byteLength(cell);
      if (header[column] === undefined) added.push([column, csvText(columns.names[column]!)]);
    }
    const addedBytes = added.reduce((sum, [, text]) => sum + Buffer.byteLength(text), 0);
    // Every line (the header, the rows so far and this one) has a comma between cells, then CRLF.
    const separators = (rows.length + 2) * (Math.max(used + added.length - 1, 0) + 2);
    if (rows.length > 0 && headerBytes + addedBytes + cellBytes + bytes + separators > maxBytes) break;
    for (const [column, text] of added) header[column] = text;
    used += added.length;
    headerBytes += addedBytes;
    cellBytes += bytes;
    rows.push({ columns: rowColumns, cells });
  }
  const rest: number[] = [];
  header.forEach((text, column) => {
    if (text !== undefined && !firstSet.has(column)) rest.push(column);
  });
  const names = columns.names;
  rest.sort((a, b) => (names[a]! < names[b]! ? -1 : names[a]! > names[b]! ? 1 : 0));
  const order = [...first, ...rest];
  const position = new Int32Array(names.length);
  order.forEach((column, i) => (position[column] = i));
  const out = [`${order.map((column) => header[column]!).join(',')}\r\n`];
  for (const row of rows)
    csvLine(
      row.columns.map((column, i) => [position[column]!, row.cells[i]!] as const),
      order.length,
      out,
    );
  return { body: out.join(''), rows: rows.length, omittedColumns: omitted };
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
