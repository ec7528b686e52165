import { getMembership } from '../shared/db/memberships';
import { getUser, getUsers } from '../shared/db/users';
import { getEventVolume30Day } from '../shared/db/definitions';
import type { EventDefinitionItem } from '../shared/db/definitions';
import { writeEventDefinitionEdits } from '../shared/db/event-definition-edits';
import { ValidationError } from '../shared/http/errors';
import { parseBody, projectRoute } from '../shared/http/private-route';
import { json } from '../shared/http/responses';
import { eventDefinitionUpdateSchema } from '../shared/schemas/event-definition';
import { editsFor } from './edits';
import { definitionOfPath } from './lookup';
import { serializeEventDefinition, userIdsOf } from './serialize';

/** An owner must be a user of the project's organization; otherwise, as DRF says, no such object. */
async function checkOwner(
  singleTable: string,
  owner: number | null | undefined,
  organizationId: string,
): Promise<void> {
  if (owner === null || owner === undefined) return;
  const [user, membership] = await Promise.all([
    getUser(singleTable, owner),
    getMembership(singleTable, owner, organizationId),
  ]);
  if (!user || !membership)
    throw new ValidationError('does_not_exist', `Invalid pk "${owner}" - object does not exist.`, 'owner');
}

/** Attempts before giving up on a definition that keeps being verified by someone else meanwhile. */
const maxAttempts = 3;

/**
 * `PATCH /api/projects/:project_id/event_definitions/:id/`: owner, description, tags, verified,
 * post_to_slack; records `updated_by`/`updated_at`, and `verified_by`/`verified_at` on verification.
 */
export const patchDefinition = projectRoute(async ({ singleTable, event, caller, project }) => {
  let item = await definitionOfPath(singleTable, project.id, event.pathParameters?.id);
  const patch = parseBody(event, eventDefinitionUpdateSchema);
  await checkOwner(singleTable, patch.owner, project.organization);
  let stored: EventDefinitionItem | 'conflict';
  for (let attempt = 1; ; attempt++) {
    const wasVerified = item.verified === true;
    const edits = editsFor(patch, wasVerified, caller.user.id, new Date());
    stored = await writeEventDefinitionEdits(singleTable, project.id, item.name, edits, wasVerified);
    if (stored !== 'conflict') break;
    if (attempt === maxAttempts) throw new Error(`Event definition ${item.id} kept changing during a PATCH`);
    // Gone (404), or verified by someone else since it was read: compute the edits again.
    item = await definitionOfPath(singleTable, project.id, item.id);
  }
  const [volume, users] = await Promise.all([
    getEventVolume30Day(singleTable, project.id, stored.name, new Date()),
    getUsers(singleTable, userIdsOf(stored)),
  ]);
  return json(200, serializeEventDefinition(stored, volume, users));
});
