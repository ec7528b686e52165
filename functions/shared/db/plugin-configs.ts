import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from './client';
import { nextId } from './counters';
import { keys } from './keys';
import {
  assignmentsOf,
  conditionally,
  isConditionalCheckFailed,
  queryPrefix,
  setExpression,
  withoutKeys,
} from './operations';

/**
 * Plugin configs (keys.ts): one item per config in its project's plugin-config partition, so a
 * project's configs are one Query (the API's list and the consumer's load). A claim item per (project, plugin) holds the id of
 * the project's config of that plugin: it is taken with a condition before the config is written, so
 * two concurrent creates of one plugin's config end in one config, as PostHog keeps one per plugin.
 *
 * `error` is kept as JSON text: the consumer writes the event a plugin failed on into it, and client
 * JSON can hold numbers DynamoDB refuses. Secret settings are kept sealed, apart from the others
 * (functions/shared/secrets): this module stores what it is given and never sees a plaintext secret.
 */

export interface PluginConfigRecord {
  id: number;
  team_id: number;
  plugin: number;
  enabled: boolean;
  order: number;
  /**
   * Validated against the plugin's config_schema: every value a string, as PostHog's form stores it.
   * Secret settings that hold a value are not here but in `secrets`.
   */
  config: Record<string, string>;
  /** The secret settings that hold a value, each sealed (functions/shared/secrets/cipher.ts): field → sealed text. */
  secrets: Record<string, string>;
  error: Record<string, unknown> | null;
  /**
   * The instance ID of the config's current load (PostHog's `instance_id` of its SYSTEM log entries):
   * set each time it is enabled or its settings change while enabled (plugin_configs/lifecycle.ts).
   */
  instance_id?: string;
  created_at: string;
  updated_at: string;
}

export type PluginConfigFields = Pick<
  PluginConfigRecord,
  'plugin' | 'enabled' | 'order' | 'config' | 'secrets' | 'error' | 'instance_id'
>;

/** A config's settings as stored: the plain ones and the sealed secret ones. */
export type PluginConfigSettings = Pick<PluginConfigRecord, 'config' | 'secrets'>;

interface PluginConfigItem extends Omit<PluginConfigRecord, 'error'> {
  error_json: string;
}

function toItem(record: PluginConfigRecord): Record<string, unknown> {
  const { error, ...fields } = record;
  const item: PluginConfigItem = { ...fields, error_json: JSON.stringify(error) };
  return { ...keys.pluginConfig(record.team_id, record.id), ...item };
}

function fromItem(raw: Record<string, unknown>): PluginConfigRecord {
  const { error_json: errorJson, ...fields } = withoutKeys<PluginConfigItem>(raw);
  return { ...fields, error: JSON.parse(errorJson) as PluginConfigRecord['error'] };
}

/** One item by key, read strongly consistent where a write follows from it. */
async function getItem(
  tableName: string,
  key: Record<string, string>,
  consistentRead: boolean,
): Promise<Record<string, unknown> | undefined> {
  const result = await documentClient.send(
    new GetCommand({ TableName: tableName, Key: key, ConsistentRead: consistentRead }),
  );
  return result.Item;
}

export async function getPluginConfig(
  tableName: string,
  projectId: number,
  configId: number,
  consistentRead = false,
): Promise<PluginConfigRecord | undefined> {
  const item = await getItem(tableName, keys.pluginConfig(projectId, configId), consistentRead);
  return item ? fromItem(item) : undefined;
}

/** Every config of a project, by id (one Query of the project's partition). */
export async function listPluginConfigs(tableName: string, projectId: number): Promise<PluginConfigRecord[]> {
  return (await queryPrefix(tableName, keys.pluginConfigsPrefix(projectId))).map(fromItem);
}

/** The id of the project's config of `pluginId`, if one was ever claimed. */
async function claimedConfigId(
  tableName: string,
  projectId: number,
  pluginId: number,
): Promise<number | undefined> {
  const item = await getItem(tableName, keys.pluginConfigClaim(projectId, pluginId), true);
  return typeof item?.config_id === 'number' ? item.config_id : undefined;
}

/** The fields a write changes, with `updated_at`, as one UpdateItem on an existing config. */
export async function updatePluginConfig(
  tableName: string,
  projectId: number,
  configId: number,
  changes: Partial<PluginConfigFields>,
): Promise<PluginConfigRecord | undefined> {
  const { error, ...plain } = changes;
  const assignments = assignmentsOf({
    ...plain,
    ...(error !== undefined ? { error_json: JSON.stringify(error) } : {}),
    updated_at: new Date().toISOString(),
  });
  try {
    const result = await documentClient.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.pluginConfig(projectId, configId),
        ...setExpression(assignments, { '#pk': 'PK' }),
        ConditionExpression: 'attribute_exists(#pk)',
        ReturnValues: 'ALL_NEW',
      }),
    );
    return result.Attributes ? fromItem(result.Attributes) : undefined;
  } catch (error) {
    if (isConditionalCheckFailed(error)) return undefined;
    throw error;
  }
}

/** Writes `record` unless its config exists; false if it did (nothing is written then). */
export async function insertPluginConfig(tableName: string, record: PluginConfigRecord): Promise<boolean> {
  return conditionally(() =>
    documentClient.send(
      new PutCommand({
        TableName: tableName,
        Item: toItem(record),
        ConditionExpression: 'attribute_not_exists(PK)',
      }),
    ),
  );
}

/** Names `configId` the project's config of `pluginId` unless one is named; false if one was. */
export async function claimPluginConfig(
  tableName: string,
  projectId: number,
  pluginId: number,
  configId: number,
): Promise<boolean> {
  return conditionally(() =>
    documentClient.send(
      new PutCommand({
        TableName: tableName,
        Item: { ...keys.pluginConfigClaim(projectId, pluginId), config_id: configId },
        ConditionExpression: 'attribute_not_exists(PK)',
      }),
    ),
  );
}

const maxAttempts = 3;

/**
 * PostHog's 2022 create: the project's config of the plugin, created, or updated with `fields` if the
 * project already has one (`created` tells which). The claim is taken before the config is written;
 * a claim whose config was never written (a create that stopped in between) is completed here.
 * `settingsFor` gives the settings once the config's id is known: secrets are sealed bound to it.
 */
export async function upsertPluginConfig(
  tableName: string,
  projectId: number,
  fields: Omit<PluginConfigFields, keyof PluginConfigSettings>,
  settingsFor: (configId: number) => Promise<PluginConfigSettings>,
): Promise<{ readonly record: PluginConfigRecord; readonly created: boolean }> {
  for (let attempt = 0; attempt < maxAttempts; attempt++) {
    const claimed = await claimedConfigId(tableName, projectId, fields.plugin);
    if (claimed !== undefined) {
      const settings = await settingsFor(claimed);
      const updated = await updatePluginConfig(tableName, projectId, claimed, { ...fields, ...settings });
      if (updated) return { record: updated, created: false };
    }
    const id = claimed ?? (await nextId(tableName, 'plugin_config'));
    if (claimed === undefined) {
      if (!(await claimPluginConfig(tableName, projectId, fields.plugin, id))) continue;
    }
    const now = new Date().toISOString();
    const record: PluginConfigRecord = {
      ...fields,
      ...(await settingsFor(id)),
      id,
      team_id: projectId,
      created_at: now,
      updated_at: now,
    };
    if (await insertPluginConfig(tableName, record)) return { record, created: true };
  }
  throw new Error('The plugin config kept changing while it was created');
}

/** Writes `error` (the last failure only, PostHog's processError) on a config that still exists. */
export async function recordPluginConfigError(
  tableName: string,
  projectId: number,
  configId: number,
  error: Record<string, unknown>,
): Promise<void> {
  await updatePluginConfig(tableName, projectId, configId, { error });
}
