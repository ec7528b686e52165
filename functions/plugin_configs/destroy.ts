import { updatePluginConfig } from '../shared/db/plugin-configs';
import { NotFoundError } from '../shared/http/errors';
import { projectRoute } from '../shared/http/private-route';
import { noContent } from '../shared/http/responses';
import { loadChangeOf, logLoadChange } from './lifecycle';
import { pluginConfigOfPath } from './load';

/**
 * `DELETE /api/projects/:project_id/plugin_configs/:id/`: 204. As PostHog's, it only disables the
 * config: the config, its settings and logs stay, and enabling it again brings it back.
 */
export const destroyPluginConfig = projectRoute(async ({ singleTable, event, project }) => {
  const config = await pluginConfigOfPath(singleTable, project.id, event);
  const updated = await updatePluginConfig(singleTable, project.id, config.id, { enabled: false });
  if (!updated) throw new NotFoundError();
  await logLoadChange(singleTable, updated, loadChangeOf(config, false, false));
  return noContent();
});
