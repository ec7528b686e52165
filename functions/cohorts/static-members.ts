import { parse } from 'csv-parse/sync';
import type { CohortRecord } from '../shared/db/cohorts';
import { getCohort, putCohort } from '../shared/db/cohorts';
import { addMembers, readAllMembers } from '../shared/db/cohort-members';
import { findPersonsByEmails } from '../shared/db/person-emails';
import { getPersonsByDistinctIds, readPersons } from '../shared/db/persons';
import { canonicalUuid } from '../shared/domain/uuid';
import { ServiceUnavailableError, ValidationError } from '../shared/http/errors';

/**
 * Static cohort members from an uploaded CSV, as PostHog reads it today (its CSVConfig): the first
 * non-empty row decides. One column: a header `person_id` (or `person-id`, `Person .id`) means person
 * uuids, `email`/`e-mail` emails (matched against the persons' `email` property), anything else
 * is a distinct id, header row included. Several columns: the `person_id`, else `distinct_id`, else
 * `email` column. Values are trimmed, empty ones dropped, unknown ids ignored; a later upload adds.
 *
 * Parsed with csv-parse (quotes, embedded newlines, BOM). Resolution reads each id's person with
 * BatchGetItem (each email's persons with a Query of the email index first), so an upload is bounded (`maxIdsPerUpload`): the API answers within its timeout.
 */

export const maxIdsPerUpload = 20_000;

type IdKind = 'person_id' | 'distinct_id' | 'email';

const headerKinds: Record<string, IdKind> = {
  person_id: 'person_id',
  'person-id': 'person_id',
  'person .id': 'person_id',
  distinct_id: 'distinct_id',
  'distinct-id': 'distinct_id',
  email: 'email',
  'e-mail': 'email',
};

const csvError = (detail: string): ValidationError => new ValidationError('invalid_input', detail, 'csv');

interface ParsedIds {
  readonly kind: IdKind;
  readonly ids: string[];
}

function rowsOf(csv: Buffer): string[][] {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(csv);
  } catch {
    throw csvError('CSV file encoding is not supported. Please save your file as UTF-8 and try again.');
  }
  try {
    const rows: string[][] = parse(text, {
      bom: true,
      relax_column_count: true,
      skip_empty_lines: true,
      columns: false,
    });
    return rows.filter((row) => row.some((cell) => cell.trim() !== ''));
  } catch (error) {
    throw csvError(`CSV file format is invalid. ${(error as Error).message.slice(0, 200)}`);
  }
}

/** The ids of an upload and what they are. */
export function parseCohortCsv(csv: Buffer): ParsedIds {
  const rows = rowsOf(csv);
  const [header] = rows;
  if (!header) throw csvError('CSV file is empty. Please upload a CSV file with at least one row of data.');
  const names = header.map((cell) => cell.trim().toLowerCase());
  let kind: IdKind;
  let column: number;
  let data: string[][];
  if (header.length === 1 || names.slice(1).every((name) => name === '')) {
    const headerKind = headerKinds[names[0]!];
    kind = headerKind === 'person_id' || headerKind === 'email' ? headerKind : 'distinct_id';
    column = 0;
    data = kind === 'distinct_id' ? rows : rows.slice(1);
  } else {
    const pick = (wanted: IdKind) => names.findIndex((name) => headerKinds[name] === wanted);
    const found = (['person_id', 'distinct_id', 'email'] as const).find((wanted) => pick(wanted) !== -1);
    if (!found)
      throw csvError(
        `Multi-column CSV must contain at least one column with a supported ID header: 'person_id', 'Person .id' (PostHog export format), 'distinct_id', 'distinct-id', or 'email'. Found columns: ${header.join(', ').slice(0, 500)}`,
      );
    kind = found;
    column = pick(found);
    data = rows.slice(1);
  }
  const ids = [...new Set(data.map((row) => (row[column] ?? '').trim()).filter((id) => id !== ''))];
  if (ids.length === 0)
    throw csvError(
      'CSV file contains no valid person IDs, distinct IDs, or email addresses. Please check your file and try again.',
    );
  if (ids.length > maxIdsPerUpload)
    throw csvError(`A CSV upload holds at most ${maxIdsPerUpload} ids; upload the rest in further PATCHes.`);
  return { kind, ids };
}

/** Person uuids of the ids that name a live person of the project. */
async function resolve(tableName: string, projectId: number, parsed: ParsedIds): Promise<string[]> {
  if (parsed.kind === 'person_id') {
    const uuids = parsed.ids.map((id) => id.toLowerCase()).filter((id) => canonicalUuid.test(id));
    const persons = await readPersons(tableName, projectId, uuids, false);
    return [...persons.values()]
      .filter((person) => person.mergedInto === undefined)
      .map((person) => person.uuid);
  }
  if (parsed.kind === 'email') {
    // PostHog matches the `email` person property (posthog/models/cohort/cohort.py).
    const persons = await findPersonsByEmails(tableName, projectId, parsed.ids);
    return persons.map((person) => person.uuid);
  }
  const persons = await getPersonsByDistinctIds(tableName, projectId, parsed.ids);
  return [...new Set([...persons.values()].map((person) => person.uuid))];
}

export const addCsvMembers = {
  /** Parses and resolves before anything is written: a bad file changes nothing. */
  async prepare(tableName: string, projectId: number, csv: Buffer): Promise<string[]> {
    return resolve(tableName, projectId, parseCohortCsv(csv));
  },

  /** Adds the members and sets the cohort's count and calculation time (PostHog's static cohort task). */
  async store(tableName: string, cohort: CohortRecord, members: readonly string[]): Promise<CohortRecord> {
    await addMembers(tableName, cohort.team_id, cohort.id, members);
    const count = (await readAllMembers(tableName, cohort.team_id, cohort.id)).size;
    for (let attempt = 0; attempt < 3; attempt++) {
      const read = await getCohort(tableName, cohort.team_id, cohort.id, true);
      if (!read) break;
      const next = {
        ...read,
        count,
        last_calculation: new Date().toISOString(),
        errors_calculating: 0,
        is_calculating: false,
      };
      const written = await putCohort(tableName, read, next);
      if (written) return written;
    }
    throw new ServiceUnavailableError('The cohort kept changing while its members were added; try again.');
  },
};
