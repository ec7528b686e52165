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
  /**
   * Columns by name, kept from the first key that lets two paths spell one name: a key holding a
   * dot, or a key under a column named `''` (whose nested names take no prefix). Until then every
   * name splits back into its path at its dots, so no two paths share one, and a new column costs no
   * hashing of its name (an export of events with tens of thousands of distinct keys makes as many).
   */
  private byName: Map<string, number> | undefined;
  private readonly top = new Map<string, number>();
  /** Per column: its nested keys' columns (built on first sight). */
  private readonly children: (Map<string, number> | undefined)[] = [];
  /** Per column: the last record (numbered from 1) that had it, and where its leaf is in `Leaves`. */
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
      if (this.byName === undefined && (key.includes('.') || (parent >= 0 && prefix === '')))
        this.byName = new Map(this.names.map((known, number) => [known, number]));
      column = this.byName?.get(name);
      if (column === undefined) {
        column = this.names.length;
        this.names.push(name);
        this.byName?.set(name, column);
        this.children.push(undefined);
        this.lastRecord.push(0);
        this.slot.push(0);
      }
      under.set(key, column);
    }
    return column;
  }
}

/** A subtree's leaves as a walk meets them (before a record's repeated columns are merged). */
interface Walk {
  readonly parent: number;
  readonly columns: number[];
  readonly values: unknown[];
}

/**
 * Every record's leaves, record after record, in the order a walk of each record meets them: leaf
 * `i` is a value in column `columns[i]`, and record `r`'s leaves end at `ends[r]`. Three arrays for
 * the whole export rather than two per record: fewer objects, and loops that read them by index.
 */
class Leaves {
  readonly columns: number[] = [];
  readonly values: unknown[] = [];
  readonly ends: number[] = [];
  /**
   * The walks of large objects, by object: an object that several records hold (the events of one
   * person show the same person's properties) is walked once, then its leaves replayed.
   */
  readonly walks = new Map<object, Walk>();
}

/**
 * Objects with at least this many keys are walked once per export: the events of a person with
 * thousands of properties (set by `$set`, which anyone with the project token can send) repeat them
 * on every row of that person.
 */
const replayedKeys = 64;

/**
 * Nested objects and lists as dotted columns; an empty object or list is a value. A column met twice
 * in one record (two spellings of it) keeps its first place and its last value. `walk` records the
 * leaves met, for the large object being walked.
 */
function flatten(
  value: unknown,
  parent: number,
  record: number,
  columns: Columns,
  into: Leaves,
  walk?: Walk,
): void {
  if (value !== null && typeof value === 'object') {
    const walked = into.walks.get(value);
    if (walked !== undefined && walked.parent === parent) {
      // The same object under the same column: the same leaves, in the same order.
      for (let i = 0; i < walked.columns.length; i++)
        addLeaf(walked.columns[i]!, walked.values[i], record, columns, into, walk);
      return;
    }
    const keys = Object.keys(value);
    if (keys.length > 0) {
      const object = value as Record<string, unknown>;
      let inner = walk;
      if (walk === undefined && walked === undefined && keys.length >= replayedKeys) {
        inner = { parent, columns: [], values: [] };
        into.walks.set(value, inner);
      }
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i]!;
        flatten(object[key], columns.child(parent, key), record, columns, into, inner);
      }
      return;
    }
  }
  // An empty record is one value, in the column named by the empty path.
  addLeaf(parent < 0 ? columns.child(-1, '') : parent, value, record, columns, into, walk);
}

/** A leaf of `record`, unless the record has its column already: then the value replaces that one. */
function addLeaf(
  column: number,
  value: unknown,
  record: number,
  columns: Columns,
  into: Leaves,
  walk: Walk | undefined,
): void {
  if (walk !== undefined) {
    walk.columns.push(column);
    walk.values.push(value);
  }
  if (columns.lastRecord[column] === record) {
    into.values[columns.slot[column]!] = value;
    return;
  }
  columns.lastRecord[column] = record;
  columns.slot[column] = into.columns.length;
  into.columns.push(column);
  into.values.push(value);
}

/**
 * Whether a cell starting with this character code would be read by a spreadsheet as the start of a
 * formula (OWASP: CSV injection): `=`, `+`, `-`, `@`, tab, carriage return.
 */
const startsFormula = (code: number): boolean =>
  code === 0x3d || code === 0x2b || code === 0x2d || code === 0x40 || code === 0x09 || code === 0x0d;

const needsQuotes = /[",\r\n]/;

/**
 * Text as one CSV field: a leading formula character is neutralised with `'` (so `=HYPERLINK(…)` sent
 * as a property shows as text, not as a live formula, when the export is opened), then quoted where
 * needed (RFC 4180).
 */
function csvText(text: string): string {
  const safe = startsFormula(text.charCodeAt(0)) ? `'${text}` : text;
  return needsQuotes.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
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
 * Which columns the export writes (1 in the result): the leading ones, and of the others (less the
 * `skipped`) those most records have, the first seen first among equals, up to `maxCsvColumns` in
 * all. A counting sort: a column is counted at most once per record, and columns are numbered in the
 * order first seen, so walking them in number order places equal counts in that order.
 */
function writtenColumns(
  leaves: Leaves,
  columnCount: number,
  leading: readonly number[],
  skipped: Uint8Array,
) {
  const records = leaves.ends.length;
  const counts = new Int32Array(columnCount);
  for (let i = 0; i < leaves.columns.length; i++) counts[leaves.columns[i]!]! += 1;
  // rankOf[k]: the rank of the next column counted k times (the columns counted more come first).
  const rankOf = new Int32Array(records + 1);
  let ranked = 0;
  for (let column = 0; column < columnCount; column++)
    if (counts[column]! > 0 && skipped[column] === 0) {
      rankOf[counts[column]!]! += 1;
      ranked++;
    }
  for (let count = records, before = 0; count > 0; count--) {
    const equals = rankOf[count]!;
    rankOf[count] = before;
    before += equals;
  }
  const room = Math.max(maxCsvColumns - leading.length, 0);
  const written = new Uint8Array(columnCount);
  for (let column = 0; column < columnCount; column++)
    if (counts[column]! > 0 && skipped[column] === 0 && rankOf[counts[column]!]!++ < room)
      written[column] = 1;
  for (const column of leading) written[column] = 1;
  return { written, omitted: Math.max(ranked - room, 0) };
}

/**
 * The rows that fit: each record's written cells escaped (column and text, row after row; row `r`
 * ends at `ends[r]`) until the body would pass `maxBytes` (at least one row). Each cell is escaped
 * and its bytes counted once; a column enters the header with the first row kept that has it, and
 * every column adds a comma to every line.
 */
function rowsFitting(
  leaves: Leaves,
  names: readonly string[],
  written: Uint8Array,
  header: (string | undefined)[],
  leading: { readonly columns: number; readonly bytes: number },
  maxBytes: number,
) {
  const cellColumns: number[] = [];
  const cellTexts: string[] = [];
  const ends: number[] = [];
  const added: number[] = [];
  const addedTexts: string[] = [];
  let used = leading.columns;
  let headerBytes = leading.bytes;
  let cellBytes = 0;
  let leaf = 0;
  for (let record = 0; record < leaves.ends.length; record++) {
    const end = leaves.ends[record]!;
    const rowStart = cellColumns.length;
    let bytes = 0;
    let addedBytes = 0;
    added.length = 0;
    addedTexts.length = 0;
    for (; leaf < end; leaf++) {
      const column = leaves.columns[leaf]!;
      if (written[column] === 0) continue;
      const cell = csvCell(leaves.values[leaf]);
      cellColumns.push(column);
      cellTexts.push(cell);
      bytes += Buffer.byteLength(cell);
      if (header[column] === undefined) {
        // Column names carry property keys, which the sender chose: escaped like any other cell.
        const text = csvText(names[column]!);
        added.push(column);
        addedTexts.push(text);
        addedBytes += Buffer.byteLength(text);
      }
    }
    // Every line (the header, the rows so far and this one) has a comma between cells, then CRLF.
    const separators = (ends.length + 2) * (Math.max(used + added.length - 1, 0) + 2);
    if (ends.length > 0 && headerBytes + addedBytes + cellBytes + bytes + separators > maxBytes) {
      cellColumns.length = rowStart;
      cellTexts.length = rowStart;
      break;
    }
    for (let i = 0; i < added.length; i++) header[added[i]!] = addedTexts[i];
    used += added.length;
    headerBytes += addedBytes;
    cellBytes += bytes;
    ends.push(cellColumns.length);
  }
  return { cellColumns, cellTexts, ends };
}

/**
 * The rows' lines appended to `out`, each with a field for every one of `position`'s `width` columns.
 * Most rows leave most columns empty: their commas are written in runs (slices of one string of
 * commas), not cell by cell; a row's cells are put in column order by sorting their positions.
 * Pieces rather than lines: the body is joined from them once.
 */
function writeLines(
  rows: ReturnType<typeof rowsFitting>,
  position: Int32Array,
  width: number,
  out: string[],
): void {
  const { cellColumns, cellTexts, ends } = rows;
  const commas = ','.repeat(width);
  // Per position, the row's cell there (positions are distinct within a row).
  const cellAt = new Int32Array(width);
  let positions = new Int32Array(16);
  let start = 0;
  for (const end of ends) {
    const count = end - start;
    if (positions.length < count) positions = new Int32Array(count);
    for (let i = 0; i < count; i++) {
      const at = position[cellColumns[start + i]!]!;
      positions[i] = at;
      cellAt[at] = start + i;
    }
    const sorted = positions.subarray(0, count).sort();
    let at = 0;
    for (let i = 0; i < count; i++) {
      const index = sorted[i]!;
      if (index > at) out.push(commas.slice(0, index - at));
      out.push(cellTexts[cellAt[index]!]!);
      at = index;
    }
    out.push(commas.slice(0, Math.max(width - 1 - at, 0)), '\r\n');
    start = end;
  }
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
  const omitted = omit.map((name) => columns.child(-1, name));
  const leaves = new Leaves();
  for (let i = 0; i < records.length; i++) {
    flatten(records[i], -1, i + 1, columns, leaves);
    leaves.ends.push(leaves.columns.length);
  }
  const names = columns.names;
  const isFirst = new Uint8Array(names.length);
  for (const column of first) isFirst[column] = 1;
  const skipped = isFirst.slice();
  for (const column of omitted) skipped[column] = 1;
  const kept = writtenColumns(leaves, names.length, first, skipped);
  const header = new Array<string | undefined>(names.length).fill(undefined);
  let leadingBytes = 0;
  for (const column of first) {
    header[column] = csvText(names[column]!);
    leadingBytes += Buffer.byteLength(header[column]);
  }
  const rows = rowsFitting(
    leaves,
    names,
    kept.written,
    header,
    { columns: first.length, bytes: leadingBytes },
    maxBytes,
  );
  const rest: number[] = [];
  for (let column = 0; column < names.length; column++)
    if (header[column] !== undefined && isFirst[column] === 0) rest.push(column);
  rest.sort((a, b) => (names[a]! < names[b]! ? -1 : names[a]! > names[b]! ? 1 : 0));
  const order = [...first, ...rest];
  const position = new Int32Array(names.length);
  order.forEach((column, i) => (position[column] = i));
  const out = [`${order.map((column) => header[column]!).join(',')}\r\n`];
  writeLines(rows, position, order.length, out);
  return { body: out.join(''), rows: rows.ends.length, omittedColumns: kept.omitted };
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
