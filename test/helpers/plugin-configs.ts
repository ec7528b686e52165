import type { PluginConfigFields, PluginConfigRecord } from '../../functions/shared/db/plugin-configs';
import { upsertPluginConfig } from '../../functions/shared/db/plugin-configs';
import { pluginById } from '../../functions/shared/domain/plugins/catalogue';
import { secretCipher } from '../../functions/shared/secrets/environment';
import { sealSettings } from '../../functions/shared/secrets/plugin-settings';

/**
 * Stores a plugin config as the API would: `config` holds every setting in the clear, the secret ones
 * are sealed with the test environment's key (test/helpers/setup-env.ts) before they are written.
 */
export async function storePluginConfig(
  tableName: string,
  projectId: number,
  fields: Omit<PluginConfigFields, 'secrets'>,
): Promise<{ readonly record: PluginConfigRecord; readonly created: boolean }> {
  const { config, ...rest } = fields;
  const schema = pluginById(fields.plugin)?.config_schema ?? [];
  return upsertPluginConfig(tableName, projectId, rest, (configId) =>
    sealSettings(secretCipher(), schema, config, {}, { projectId, pluginConfigId: configId }),
  );
}
