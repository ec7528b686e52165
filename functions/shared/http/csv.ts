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
 * A header row and one row per record, nested values flattened into dotted columns: `leading`
 * columns first, then the others sorted (djangorestframework-csv's order), `omit`ted ones left out.
 */
export function toCsv(
  records: readonly object[],
  leading: readonly string[] = [],
  omit: readonly string[] = [],
): string {
  const rows = records.map((record) => {
    const flat = new Map<string, unknown>();
    flatten(record, '', flat);
    return flat;
  });
  const rest = new Set<string>();
  for (const row of rows)
    for (const column of row.keys())
      if (!leading.includes(column) && !omit.includes(column)) rest.add(column);
  const columns = [...leading, ...[...rest].sort()];
  const lines = [
    // Column names carry property keys, which the sender chose: escaped like any other cell.
    columns.map(csvText).join(','),
    ...rows.map((row) => columns.map((column) => csvCell(row.get(column))).join(',')),
  ];
  return `${lines.join('\r\n')}\r\n`;
}

/**
 * A CSV export as a download: browsers and `curl -OJ` save it as `filename` rather than show it
 * (PostHog's exports are attachments too).
 */
export function csvResponse(body: string, filename: string): HttpResult {
  return {
    statusCode: 200,
    headers: {
      'Content-Type': 'text/csv; charset=utf-8',
      'Content-Disposition': `attachment; filename="${filename}"`,
    },
    body,
  };
}
