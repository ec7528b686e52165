import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setToolEnvironment } from '../environment';
import { singleTable } from '../../functions/shared/db/schema';
import { generatePersonalApiKey } from '../../functions/shared/auth/secrets';
import type { Credentials } from '../local/server';
import { startDynalite } from '../local/emulators';
import { LocalStartError, lockDataDir } from '../local/start-errors';

/** The first user bootstrap creates: the owner of a local data directory's organization. */
const firstUserId = 1;
/** `npm start`'s default address, until the next start rewrites it. */
const defaultApiUrl = 'http://localhost:8000';

/**
 * `npm run flock -- keys create --local`: a new personal API key for the owner of a local data
 * directory (the way back when its credentials.json was lost or overwritten), written to that
 * directory's credentials.json with the owner's current project, so the next `npm start` reuses
 * the data rather than bootstrapping a second organization. Opens the DynamoDB files itself, so the
 * server must not be running on the directory.
 */
export async function createLocalPersonalKey(dataDir: string): Promise<Credentials> {
  const dynamodbPath = join(dataDir, 'dynamodb');
  if (!existsSync(dynamodbPath))
    throw new LocalStartError(`${dataDir} holds no Flock data: \`npm start\` bootstraps a fresh one.`);
  const release = lockDataDir(dataDir);
  const dynamodb = await startDynalite(dynamodbPath);
  try {
    setToolEnvironment({
      AWS_ENDPOINT_URL_DYNAMODB: dynamodb.endpoint,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
    });
    const { getUser } = await import('../../functions/shared/db/users');
    const { getProject, listProjectsOfOrganization } = await import('../../functions/shared/db/projects');
    const { createPersonalApiKey } = await import('../../functions/shared/db/personal-api-keys');
    const user = await getUser(singleTable.name, firstUserId);
    if (!user) throw new LocalStartError(`${dataDir} holds no Flock user: \`npm start\` bootstraps one.`);
    const project =
      (user.current_project_id !== null
        ? await getProject(singleTable.name, user.current_project_id)
        : undefined) ?? (await listProjectsOfOrganization(singleTable.name, user.current_organization_id))[0];
    if (!project) throw new LocalStartError(`The user of ${dataDir} has no project left.`);
    const personalApiKey = generatePersonalApiKey();
    await createPersonalApiKey(singleTable.name, user.id, 'created by keys create --local', personalApiKey);
    const credentials: Credentials = {
      apiUrl: previousApiUrl(dataDir),
      projectId: project.id,
      projectApiKey: project.api_token,
      personalApiKey,
    };
    writeFileSync(join(dataDir, 'credentials.json'), `${JSON.stringify(credentials, null, 2)}\n`, {
      mode: 0o600,
    });
    return credentials;
  } finally {
    await dynamodb.stop();
    release();
  }
}

function previousApiUrl(dataDir: string): string {
  try {
    const saved = JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8')) as Partial<Credentials>;
    return typeof saved.apiUrl === 'string' ? saved.apiUrl : defaultApiUrl;
  } catch {
    return defaultApiUrl;
  }
}
