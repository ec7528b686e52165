import { bindOperations } from '../routes';
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
  routes: bindOperations('projects', {
    projects_list: listProjects,
    projects_create: createProjectRoute,
    projects_retrieve: retrieveProject,
    projects_partial_update: patchProject,
    projects_destroy: destroyProject,
  }),
});
