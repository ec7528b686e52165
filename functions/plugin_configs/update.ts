import { updatePluginConfig } from '../shared/db/plugin-configs';
import { secretCipher } from '../shared/secrets/environment';
import { sealedSettings, sealSettings } from '../shared/secrets/plugin-settings';
import { NotFoundError, ValidationError } from '../shared/http/errors';
import { projectRoute } from '../shared/http/private-route';
import { json } from '../shared/http/responses';
import { pluginById } from '../shared/domain/plugins/catalogue';
import { serializeConfig } from './serialize';
import { configValues, pluginConfigWriteOf, pluginOfField } from './body';
import { loadChangeOf, logLoadChange } from './lifecycle';
import { pluginConfigOfPath } from './load';

/**
 * `PATCH /api/projects/:project_id/plugin_configs/:id/`: partial. A `config` sent replaces the
 * settings, a secret one sent as null, left out or as its mask keeping its value (PostHog's rule).
 * A config stays the config of its plugin: one config per plugin, so `plugin` may only repeat it.
 */
export const patchPluginConfig = projectRoute(async ({ singleTable, event, project }) => {
  const current = await pluginConfigOfPath(singleTable, project.id, event);
  const body = await pluginConfigWriteOf(event);
  if (body.plugin !== undefined && pluginOfField(body.plugin).id !== current.plugin) {
    throw new ValidationError(
      'invalid_input',
      "A plugin config's plugin cannot be changed: create a config of the other plugin.",
      'plugin',
    );
  }
  const plugin = pluginById(current.plugin);
  if (!plugin) throw new NotFoundError();
  const settings =
    body.config === undefined
      ? {}
      : await sealSettings(
          secretCipher(),
          plugin.config_schema,
          configValues(plugin, body.config, sealedSettings(current)),
          current.secrets,
          { projectId: project.id, pluginConfigId: current.id },
        );
  const change = loadChangeOf(current, body.enabled, body.config !== undefined);
  const updated = await updatePluginConfig(singleTable, project.id, current.id, {
    ...(body.enabled !== undefined ? { enabled: body.enabled } : {}),
    ...(change.loads ? { instance_id: change.loads } : {}),
    ...(body.order !== undefined ? { order: body.order } : {}),
    ...(body.error !== undefined ? { error: body.error } : {}),
    ...settings,
  });
  if (!updated) throw new NotFoundError();
  await logLoadChange(singleTable, updated, change);
  return json(200, await serializeConfig(singleTable, updated));
});
