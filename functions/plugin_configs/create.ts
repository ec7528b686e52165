import { listPluginConfigs, upsertPluginConfig } from '../shared/db/plugin-configs';
import { secretCipher } from '../shared/secrets/environment';
import { sealedSettings, sealSettings } from '../shared/secrets/plugin-settings';
import { ValidationError } from '../shared/http/errors';
import { projectRoute } from '../shared/http/private-route';
import { json } from '../shared/http/responses';
import { loadChangeOf, logLoadChange } from './lifecycle';
import { serializeConfig } from './serialize';
import { configValues, pluginConfigWriteOf, pluginOfField } from './body';

/**
 * `POST /api/projects/:project_id/plugin_configs/`: 201 with the config. As PostHog (2022) does, a
 * project has one config per plugin: posting for a plugin that has one updates that one. `enabled`
 * defaults to false (PostHog's default); `order`, which PostHog's UI always sends, to after the last.
 */
export const createPluginConfigRoute = projectRoute(async ({ singleTable, event, project }) => {
  const body = await pluginConfigWriteOf(event);
  if (body.plugin === undefined) throw new ValidationError('required', 'This field is required.', 'plugin');
  const plugin = pluginOfField(body.plugin);
  const configs = await listPluginConfigs(singleTable, project.id);
  const existing = configs.find((config) => config.plugin === plugin.id);
  const values =
    body.config === undefined && existing
      ? undefined
      : configValues(plugin, body.config ?? {}, existing && sealedSettings(existing));
  const lastOrder = Math.max(0, ...configs.map((c) => c.order));
  const enabled = body.enabled ?? existing?.enabled ?? false;
  const change = loadChangeOf(existing, enabled, existing !== undefined && body.config !== undefined);
  const { record } = await upsertPluginConfig(
    singleTable,
    project.id,
    {
      plugin: plugin.id,
      enabled,
      ...(change.loads ? { instance_id: change.loads } : {}),
      order: body.order ?? existing?.order ?? Math.min(lastOrder + 1, 2_147_483_647),
      error: body.error !== undefined ? body.error : (existing?.error ?? null),
    },
    // The existing config's id is the claimed one: its sealed secrets stay bound to the right config.
    async (configId) =>
      values === undefined && existing
        ? { config: existing.config, secrets: existing.secrets }
        : sealSettings(secretCipher(), plugin.config_schema, values ?? {}, existing?.secrets ?? {}, {
            projectId: project.id,
            pluginConfigId: configId,
          }),
  );
  await logLoadChange(singleTable, record, change);
  return json(201, await serializeConfig(singleTable, record));
});
