import type { CohortRecord } from '../shared/db/cohorts';
import { getCohort, listCohorts, putCohort } from '../shared/db/cohorts';
import { listFeatureFlags } from '../shared/db/feature-flags';
import { ServiceUnavailableError } from '../shared/http/errors';
import { projectRoute } from '../shared/http/private-route';
import { json } from '../shared/http/responses';
import type { CohortWrite } from '../shared/schemas/cohort';
import { cohortWriteOf } from './body';
import { checkAgainstProject, definitionOfWrite } from './definition';
import { checkDynamicBound } from './limits';
import { cohortIdParam } from './load';
import { NotFoundError } from '../shared/http/errors';
import { serializeCohort } from './serialize';
import { addCsvMembers } from './static-members';

const maxAttempts = 3;

/**
 * The cohort a PATCH leaves (`posthog/api/cohort.py`): a change of `deleted` alone is a deletion change
 * and recalculates nothing; any other change of a dynamic cohort (even a rename, as in PostHog)
 * starts a calculation of a new pending version.
 */
function patched(
  cohort: CohortRecord,
  body: CohortWrite,
  definition: Pick<CohortRecord, 'filters' | 'groups'>,
) {
  const deletionChange = body.deleted !== undefined && body.deleted !== cohort.deleted;
  const isStatic = body.is_static ?? cohort.is_static;
  const recalculate = !deletionChange && !isStatic;
  return {
    ...cohort,
    ...definition,
    ...(body.name !== undefined ? { name: body.name } : {}),
    ...(body.description !== undefined ? { description: body.description } : {}),
    deleted: body.deleted ?? cohort.deleted,
    is_static: isStatic,
    ...(recalculate
      ? { is_calculating: true, pending_version: cohort.pending_version + 1 }
      : isStatic
        ? { is_calculating: false }
        : {}),
  };
}

/** `PATCH /api/projects/:project_id/cohorts/:id/`: partial; soft delete and undelete by `deleted`. */
export const patchCohort = projectRoute(async ({ singleTable, event, project }) => {
  const cohortId = cohortIdParam(event);
  const { fields: body, csv } = await cohortWriteOf(event);
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    const cohort = await getCohort(singleTable, project.id, cohortId, true);
    if (!cohort) throw new NotFoundError();
    const isStatic = body.is_static ?? cohort.is_static;
    const deleted = body.deleted ?? cohort.deleted;
    const { definition, facts } = definitionOfWrite(body, cohort, { isStatic, deleted });
    if (facts) {
      const [cohorts, flags] = await Promise.all([
        listCohorts(singleTable, project.id),
        listFeatureFlags(singleTable, project.id),
      ]);
      if (cohort.is_static || cohort.deleted) checkDynamicBound(cohort.id, cohorts);
      checkAgainstProject({ ...cohort, ...definition, is_static: isStatic, deleted }, facts, cohorts, flags);
    }
    const members = csv && isStatic ? await addCsvMembers.prepare(singleTable, project.id, csv) : undefined;
    const next = patched(cohort, body, definition);
    let written = await putCohort(singleTable, cohort, next);
    if (!written) continue;
    if (members) written = await addCsvMembers.store(singleTable, written, members);
    return json(200, serializeCohort(written));
  }
  throw new ServiceUnavailableError('The cohort kept changing while this update was applied; try again.');
});
