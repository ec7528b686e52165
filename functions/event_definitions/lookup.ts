import type { EventDefinitionItem } from '../shared/db/definitions';
import { getEventDefinitionById } from '../shared/db/definitions';
import { NotFoundError } from '../shared/http/errors';

export const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The definition `:id` names within the project; 404 for an unknown id, a non-uuid, or another project's. */
export async function definitionOfPath(
  tableName: string,
  projectId: number,
  rawId: string | undefined,
): Promise<EventDefinitionItem> {
  const item =
    rawId && uuidPattern.test(rawId)
      ? await getEventDefinitionById(tableName, projectId, rawId.toLowerCase())
      : undefined;
  if (!item) throw new NotFoundError();
  return item;
}
