import type { PluginConfigRecord } from '../shared/db/plugin-configs';
import { deliveryRate24h } from '../shared/db/plugin-exports';
import { s3ExportPlugin } from '../shared/domain/plugins/s3-export';
import type { PluginConfigResponse } from '../shared/schemas/plugin';
import { serializePluginConfig } from '../shared/serializers/plugin';

/**
 * Configs as the API answers them, `delivery_rate_24h` read for export configs only (one Query each;
 * a project has at most one config per plugin, so a page costs at most one).
 */
export async function serializeConfigs(
  singleTable: string,
  configs: readonly PluginConfigRecord[],
  withPluginInfo: boolean,
): Promise<PluginConfigResponse[]> {
  return Promise.all(
    configs.map(async (config) =>
      serializePluginConfig(
        config,
        withPluginInfo,
        config.plugin === s3ExportPlugin.id
          ? await deliveryRate24h(singleTable, config.team_id, config.id)
          : null,
      ),
    ),
  );
}

export async function serializeConfig(
  singleTable: string,
  config: PluginConfigRecord,
): Promise<PluginConfigResponse> {
  const [serialized] = await serializeConfigs(singleTable, [config], true);
  return serialized!;
}
