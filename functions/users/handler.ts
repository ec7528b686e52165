import { bindOperations } from '../routes';
import { privateApiConfig } from '../shared/config';
import { createPrivateHttpHandler } from '../shared/http/private-handler';
import { listOrganizationProjects, listOrganizations, retrieveOrganization } from './organizations';
import { retrieveUser } from './retrieve';
import { patchUser } from './update';

export const handler = createPrivateHttpHandler({
  config: privateApiConfig(),
  jsonBody: true,
  routes: bindOperations('users', {
    users_retrieve: retrieveUser,
    users_partial_update: patchUser,
    organizations_list: listOrganizations,
    organizations_retrieve: retrieveOrganization,
    organizations_projects_list: listOrganizationProjects,
  }),
});
