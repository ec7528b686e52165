import { keys } from '../shared/db/keys';
import { batchGetItems } from '../shared/db/operations';
import type { DistinctIdItem, PersonItem } from '../shared/db/persons';
import type { PropertyBag } from '../shared/domain/flags';
import { maxForwardingHops } from '../shared/domain/persons';

/** What flags read of a stored person: its uuid (for static cohort memberships) and properties. */
export interface FlagsPerson {
  readonly uuid: string;
  readonly properties: PropertyBag;
}

const mappingProjection = { expression: '#person', names: { '#person': 'person' } };
const personProjection = {
  expression: '#props, #mergedInto',
  names: { '#props': 'props', '#mergedInto': 'merged_into' },
};

/**
 * The live person of a distinct id, as flags need it, in the fewest and smallest reads: the distinct
 * id's mapping (its `person` attribute only), then the person item (its properties and
 * `merged_into` only), following merged persons to the one that survived as the persons API does.
 * The person's property times, unset tombstones and distinct id list, which can be larger than its
 * properties, are neither transferred nor parsed. Eventually consistent, as every read of `/decide`
 * (a person written a moment ago may not be seen yet). Undefined when the distinct id has no person.
 */
export async function flagsPersonOf(
  tableName: string,
  projectId: number,
  distinctId: string,
): Promise<FlagsPerson | undefined> {
  const [mapping] = await batchGetItems<Pick<DistinctIdItem, 'person'>>(
    tableName,
    [keys.personDistinctId(projectId, distinctId)],
    false,
    mappingProjection,
  );
  let uuid = mapping?.person;
  for (let hop = 0; uuid !== undefined && hop <= maxForwardingHops; hop++) {
    const [person] = await batchGetItems<Pick<PersonItem, 'props' | 'merged_into'>>(
      tableName,
      [keys.person(projectId, uuid)],
      false,
      personProjection,
    );
    if (!person) return undefined;
    if (person.merged_into === undefined)
      return { uuid, properties: person.props ? (JSON.parse(person.props) as PropertyBag) : {} };
    uuid = person.merged_into;
  }
  return undefined;
}
