import { privateApi } from '../helpers/api';
import type { LocalServer } from '../helpers/local-server';
import { sharedLocalServer } from '../helpers/local-server';
import { bootstrapOrganization } from '../helpers/organizations';

describe('npm run flock -- bootstrap', () => {
  let server: LocalServer;

  beforeAll(async () => {
    server = await sharedLocalServer('ops-cli');
  });

  afterAll(async () => {
    await server.stop();
  });

  it('creates a working organization, project and personal key in the given table, isolated from others', async () => {
    // Act: the CLI against the server's DynamoDB (test/helpers/organizations.ts runs it).
    const created = await bootstrapOrganization(server, 'Second org');

    // Assess
    expect(created.personalApiKey).toMatch(/^phx_[\w-]{43}$/);
    expect(created.projectApiKey).toMatch(/^phc_[\w-]{43}$/);
    const own = await privateApi(server, created.personalApiKey).get(
      `/api/projects/${created.projectId}/events/`,
    );
    expect(own.status).toBe(200);
    const other = await privateApi(server, created.personalApiKey).get(
      `/api/projects/${server.credentials.projectId}/events/`,
    );
    expect(other).toMatchObject({
      status: 403,
      body: { code: 'permission_denied', detail: "You don't have access to the project." },
    });
  });
});
