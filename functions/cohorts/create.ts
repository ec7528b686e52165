import { createCohort, listCohorts } from '../shared/db/cohorts';
import { projectRoute } from '../shared/http/private-route';
import { json } from '../shared/http/responses';
import { userBasic } from '../shared/schemas/common';
import { cohortWriteOf } from './body';
import { checkAgainstProject, definitionOfWrite } from './definition';
import { checkDynamicBound } from './limits';
import { serializeCohort } from './serialize';
import { addCsvMembers } from './static-members';

/**
 * `POST /api/projects/:project_id/cohorts/`: 201 with the cohort. A dynamic cohort answers
 * `is_calculating: true, count: null` and is calculated asynchronously (the calculation schedule
 * picks it up at once); a static one takes its members from the `csv` file of a multipart body.
 */
export const createCohortRoute = projectRoute(async ({ singleTable, event, caller, project }) => {
  const { fields: body, csv } = await cohortWriteOf(event);
  const isStatic = body.is_static ?? false;
  const deleted = body.deleted ?? false;
  const { definition, facts } = definitionOfWrite(body, undefined, { isStatic, deleted });
  if (facts) {
    const draft = { id: 0, name: body.name ?? null, deleted, is_static: isStatic, ...definition };
    const cohorts = await listCohorts(singleTable, project.id);
    checkDynamicBound(draft.id, cohorts);
    checkAgainstProject(draft, facts, cohorts, []);
  }
  const members = csv ? await addCsvMembers.prepare(singleTable, project.id, csv) : undefined;
  const now = new Date();
  let cohort = await createCohort(
    singleTable,
    {
      team_id: project.id,
      name: body.name ?? null,
      description: body.description ?? '',
      ...definition,
      deleted,
      is_static: isStatic,
      is_calculating: !isStatic,
      count: null,
      last_calculation: null,
      errors_calculating: 0,
      last_error_at: null,
      created_by: userBasic(caller.user),
      pending_version: 1,
    },
    now,
  );
  if (members) cohort = await addCsvMembers.store(singleTable, cohort, members);
  return json(201, serializeCohort(cohort));
});
