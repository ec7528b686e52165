import type { PluginConfigRecord } from '../shared/db/plugin-configs';
import { listPluginConfigs, updatePluginConfig } from '../shared/db/plugin-configs';
import { parseBody, projectRoute } from '../shared/http/private-route';
import { json } from '../shared/http/responses';
import { rearrangeSchema } from '../shared/schemas/plugin';
import { byRunOrder } from '../shared/serializers/plugin';
import { serializeConfigs } from './serialize';

/**
 * The enabled config a key of `orders` names: a plugin config id (PostHog 2023+) or, failing that, a
 * plugin id (PostHog 2021–22); both are accepted (`posthog/api/plugin.py`).
 */
function configOfKey(enabled: readonly PluginConfigRecord[], key: string): PluginConfigRecord | undefined {
  if (!/^\d{1,15}$/.test(key)) return undefined;
  const id = Number(key);
  return enabled.find((config) => config.id === id) ?? enabled.find((config) => config.plugin === id);
}

/**
 * `PATCH /api/projects/:project_id/plugin_configs/rearrange/`: `{orders: {key: order}}` sets the
 * order of the project's enabled configs (unknown keys ignored, unchanged ones not written) and
 * answers every enabled config, in run order, as a bare array (PostHog's answer).
 */
export const rearrangePluginConfigs = projectRoute(async ({ singleTable, event, project }) => {
  const { orders = {} } = parseBody(event, rearrangeSchema);
  const enabled = (await listPluginConfigs(singleTable, project.id)).filter((config) => config.enabled);
  const byId = new Map(enabled.map((config) => [config.id, config]));
  for (const [key, order] of Object.entries(orders)) {
    const config = configOfKey(enabled, key);
    if (!config || config.order === order) continue;
    const updated = await updatePluginConfig(singleTable, project.id, config.id, { order });
    if (updated) byId.set(updated.id, updated);
    else byId.delete(config.id);
  }
  const results = await serializeConfigs(singleTable, [...byId.values()].sort(byRunOrder), true);
  return json(200, results);
});
