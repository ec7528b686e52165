import { validationErrorFromZod } from '../shared/http/errors';
import { booleanText, isMultipart, jsonField, multipartForm } from '../shared/http/multipart';
import { parseBody } from '../shared/http/private-route';
import type { HttpEvent } from '../shared/http/types';
import type { CohortWrite } from '../shared/schemas/cohort';
import { cohortWriteSchema } from '../shared/schemas/cohort';

/**
 * A cohort write as JSON, or as the multipart form PostHog's UI sends for static cohorts: text
 * fields (`name`, `is_static`, `groups`/`filters` as JSON text…) and a `csv` file field (other files
 * are ignored), then validated with the JSON body's schema.
 */
export interface CohortWriteRequest {
  readonly fields: CohortWrite;
  readonly csv?: Buffer;
}

export async function cohortWriteOf(event: HttpEvent): Promise<CohortWriteRequest> {
  if (!isMultipart(event)) return { fields: parseBody(event, cohortWriteSchema) };
  const { fields, files } = await multipartForm(event);
  const csv = files.get('csv');
  const raw: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(fields)) {
    if (name === 'groups' || name === 'filters') raw[name] = jsonField(name, value);
    else if (name === 'is_static' || name === 'deleted') raw[name] = booleanText(value);
    else raw[name] = value;
  }
  const parsed = cohortWriteSchema.safeParse(raw);
  if (!parsed.success) throw validationErrorFromZod(parsed.error);
  return { fields: parsed.data, ...(csv ? { csv } : {}) };
}
