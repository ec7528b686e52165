import { addMembership } from '../../functions/shared/db/memberships';
import { createOrganization } from '../../functions/shared/db/organizations';
import { createPersonalApiKey } from '../../functions/shared/db/personal-api-keys';
import { createUser, setCurrentProject } from '../../functions/shared/db/users';
import { createProject } from '../../functions/shared/db/projects';
import { generatePersonalApiKey } from '../../functions/shared/auth/secrets';

export interface BootstrapOptions {
  readonly organizationName: string;
  readonly projectName: string;
  readonly email: string;
  readonly firstName: string;
}

export interface BootstrapResult {
  readonly organizationId: string;
  readonly userId: number;
  readonly projectId: number;
  readonly projectApiKey: string;
  /** Shown once: only its hash is stored. */
  readonly personalApiKey: string;
}

export const defaultBootstrap: BootstrapOptions = {
  organizationName: 'Flock',
  projectName: 'Default project',
  email: 'admin@flock.local',
  firstName: 'Admin',
};

/**
 * The first organization, its owner, a project and a personal API key: what a fresh Flock needs
 * before an SDK or a script can talk to it.
 */
export async function bootstrap(
  tableName: string,
  options: BootstrapOptions = defaultBootstrap,
): Promise<BootstrapResult> {
  const organization = await createOrganization(tableName, options.organizationName);
  const user = await createUser(tableName, {
    first_name: options.firstName,
    email: options.email,
    organizationId: organization.id,
  });
  await addMembership(tableName, user.id, organization.id, 15);
  const project = await createProject(tableName, {
    organizationId: organization.id,
    name: options.projectName,
  });
  await setCurrentProject(tableName, user.id, project.id);
  const personalApiKey = generatePersonalApiKey();
  await createPersonalApiKey(tableName, user.id, 'bootstrap', personalApiKey);
  return {
    organizationId: organization.id,
    userId: user.id,
    projectId: project.id,
    projectApiKey: project.api_token,
    personalApiKey,
  };
}
