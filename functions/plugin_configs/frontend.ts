import { projectRoute } from '../shared/http/private-route';
import { pluginConfigOfPath } from './load';

/**
 * What PostHog's `frontend/` answers for a plugin without a `frontend.tsx` (`posthog/api/plugin.py`): a
 * module whose app says so. No built-in plugin has a frontend.
 */
const noFrontendApp = 'export function getFrontendApp () { return {"no_frontend": true} }';

/** `GET /api/projects/:project_id/plugin_configs/:id/frontend/`: JavaScript text, as PostHog's. */
export const pluginConfigFrontend = projectRoute(async ({ singleTable, event, project }) => {
  await pluginConfigOfPath(singleTable, project.id, event);
  return {
    statusCode: 200,
    headers: { 'Content-Type': 'application/javascript; charset=UTF-8' },
    body: noFrontendApp,
  };
});
