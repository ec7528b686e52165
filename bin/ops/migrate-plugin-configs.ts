import { DeleteCommand, paginateScan } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../functions/shared/db/client';
import { keys } from '../../functions/shared/db/keys';
import type { PluginConfigRecord } from '../../functions/shared/db/plugin-configs';
import { claimPluginConfig, insertPluginConfig } from '../../functions/shared/db/plugin-configs';
import { pluginById } from '../../functions/shared/domain/plugins/catalogue';
import type { SecretCipher } from '../../functions/shared/secrets/cipher';
import { sealSettings } from '../../functions/shared/secrets/plugin-settings';

/**
 * The upgrade of plugin configs written before they had a partition of their own: each config
 * (PROJECT#<project> / PLUGINCONFIG#<id>) and each claim (PROJECT#<project> / PLUGINFOR#<plugin>) is
 * copied to its key in the project's plugin-config partition, the config's secret settings sealed on
 * the way, and only then deleted from the project's partition, where every function could read it.
 *
 * Replayable: a copy already there is kept (an earlier run, or the API since the deploy, wrote it)
 * and the old item is deleted all the same, so a run stopped anywhere is finished by the next one,
 * and a second run finds nothing to do. Claims go first, so a config created through the API while
 * the upgrade runs takes the id its plugin already has.
 */
export interface MigrationResult {
  readonly configs: number;
  readonly claims: number;
}

type Item = Record<string, unknown>;

const legacy = keys.legacyPluginConfigSortKeyPrefixes;

/** The old items, claims first: one Scan of the table (this runs once per deployment, by an operator). */
async function legacyItems(tableName: string): Promise<{ claims: Item[]; configs: Item[] }> {
  const claims: Item[] = [];
  const configs: Item[] = [];
  const pages = paginateScan(
    { client: documentClient },
    {
      TableName: tableName,
      FilterExpression: 'begins_with(PK, :project) AND (begins_with(SK, :config) OR begins_with(SK, :claim))',
      ExpressionAttributeValues: {
        ':project': keys.legacyProjectPartitionPrefix,
        ':config': legacy.config,
        ':claim': legacy.claim,
      },
    },
  );
  for await (const page of pages)
    for (const item of page.Items ?? [])
      (String(item.SK).startsWith(legacy.claim) ? claims : configs).push(item);
  return { claims, configs };
}

const projectOf = (item: Item): number =>
  Number(String(item.PK).slice(keys.legacyProjectPartitionPrefix.length));

async function deleteLegacy(tableName: string, item: Item): Promise<void> {
  await documentClient.send(new DeleteCommand({ TableName: tableName, Key: { PK: item.PK, SK: item.SK } }));
}

/** An old config item as the record it becomes: its secret settings sealed, bound to it. */
async function upgradedRecord(cipher: SecretCipher, item: Item): Promise<PluginConfigRecord> {
  const { PK: _pk, SK: _sk, error_json: errorJson, config, ...fields } = item;
  const error = JSON.parse(String(errorJson)) as PluginConfigRecord['error'];
  const record = { ...fields, error } as Omit<PluginConfigRecord, 'config' | 'secrets'>;
  const settings = await sealSettings(
    cipher,
    pluginById(record.plugin)?.config_schema ?? [],
    config as Record<string, string>,
    {},
    { projectId: record.team_id, pluginConfigId: record.id },
  );
  return { ...record, ...settings };
}

export async function migratePluginConfigs(
  tableName: string,
  cipher: SecretCipher,
): Promise<MigrationResult> {
  const { claims, configs } = await legacyItems(tableName);
  for (const claim of claims) {
    const pluginId = Number(String(claim.SK).slice(legacy.claim.length));
    await claimPluginConfig(tableName, projectOf(claim), pluginId, Number(claim.config_id));
    await deleteLegacy(tableName, claim);
  }
  for (const config of configs) {
    await insertPluginConfig(tableName, await upgradedRecord(cipher, config));
    await deleteLegacy(tableName, config);
  }
  return { configs: configs.length, claims: claims.length };
}
