import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../shared/db/client';
import { keys } from '../shared/db/keys';
import type { Projection } from '../shared/db/operations';
import type { DistinctIdItem, PersonItem } from '../shared/db/persons';
import type { PropertyBag } from '../shared/domain/flags';
import { maxForwardingHops } from '../shared/domain/persons';
import { personIds } from './person-ids';

/** What flags read of a stored person: its uuid (for static cohort memberships) and properties. */
export interface FlagsPerson {
  readonly uuid: string;
  readonly properties: PropertyBag;
}

const mappingProjection: Projection = { expression: '#person', names: { '#person': 'person' } };
const personProjection: Projection = {
  expression: '#props, #mergedInto',
  names: { '#props': 'props', '#mergedInto': 'merged_into' },
};

/**
 * One item, only the projected attributes, eventually consistent: a GetItem, whose request and answer
 * are smaller to build, sign and parse than a BatchGetItem of one key (same read units).
 */
async function getProjected<T>(
  tableName: string,
  key: Record<string, unknown>,
  projection: Projection,
): Promise<T | undefined> {
  const { Item } = await documentClient.send(
    new GetCommand({
      TableName: tableName,
      Key: key,
      ProjectionExpression: projection.expression,
      ExpressionAttributeNames: projection.names,
    }),
  );
  return Item as T | undefined;
}

/** The live person `uuid` leads to, following merged persons; undefined if missing or too far. */
async function livePersonFrom(
  tableName: string,
  projectId: number,
  uuid: string | undefined,
): Promise<FlagsPerson | undefined> {
  for (let hop = 0; uuid !== undefined && hop <= maxForwardingHops; hop++) {
    const person = await getProjected<Pick<PersonItem, 'props' | 'merged_into'>>(
      tableName,
      keys.person(projectId, uuid),
      personProjection,
    );
    if (!person) return undefined;
    if (person.merged_into === undefined)
      return { uuid, properties: person.props ? (JSON.parse(person.props) as PropertyBag) : {} };
    uuid = person.merged_into;
  }
  return undefined;
}

/**
 * The live person of a distinct id, as flags need it, in the fewest and smallest reads: the distinct
 * id's mapping (its `person` attribute only), then the person item (its properties and
 * `merged_into` only), following merged persons to the one that survived as the persons API does.
 * A distinct id whose person this container found before skips the mapping: its person's uuid is
 * remembered (`person-ids.ts`, which says why that is always the mapping's answer), and only if
 * that person is missing is the mapping read. The person's property times, unset tombstones and
 * distinct id list, which can be larger than its properties, are neither transferred nor parsed.
 * Eventually consistent, as every read of `/decide` (a person written a moment ago may not be seen
 * yet). Undefined when the distinct id has no person.
 */
export async function flagsPersonOf(
  tableName: string,
  projectId: number,
  distinctId: string,
): Promise<FlagsPerson | undefined> {
  const remembered = personIds.get(tableName, projectId, distinctId);
  if (remembered !== undefined) {
    const person = await livePersonFrom(tableName, projectId, remembered);
    if (person) {
      if (person.uuid !== remembered) personIds.set(tableName, projectId, distinctId, person.uuid);
      return person;
    }
    personIds.delete(tableName, projectId, distinctId);
  }
  const mapping = await getProjected<Pick<DistinctIdItem, 'person'>>(
    tableName,
    keys.personDistinctId(projectId, distinctId),
    mappingProjection,
  );
  const person = await livePersonFrom(tableName, projectId, mapping?.person);
  if (person) personIds.set(tableName, projectId, distinctId, person.uuid);
  return person;
}
