import { routeMap } from '../routes';
import { privateApiConfig } from '../shared/config';
import { createPrivateHttpHandler } from '../shared/http/private-handler';
import { createProjectRoute } from './create';
import { destroyProject } from './destroy';
import { listProjects } from './list';
import { retrieveProject } from './retrieve';
import { patchProject } from './update';

export const handler = createPrivateHttpHandler({
  config: privateApiConfig(),
  jsonBody: true,
  routes: routeMap('projects', {
    'GET /api/projects/': listProjects,
    'POST /api/projects/': createProjectRoute,
    'GET /api/projects/{project_id}/': retrieveProject,
    'PATCH /api/projects/{project_id}/': patchProject,
    'DELETE /api/projects/{project_id}/': destroyProject,
  }),
});
