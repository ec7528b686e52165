import { isPrivateRoute, routeKey, routes } from '../../../functions/routes';
import { postJson, privateApi } from '../../helpers/api';
import type { LocalServer } from '../../helpers/local-server';
import { eventually, sharedLocalServer } from '../../helpers/local-server';
import type { BootstrappedOrganization } from '../../helpers/organizations';
import { newOrganization } from '../../helpers/organizations';

/**
 * Two organizations in one Flock, each with its owner, project and key (A, B). B's key
 * reaches nothing of A's: 403 for A's projects and everything under them, 404 for A's user and keys.
 */
let server: LocalServer;
let other: BootstrappedOrganization;

interface Page<T> {
  count: number;
  results: T[];
}

/** A's objects that B must not reach. */
const first = { definitionId: '', keyId: '', userUuid: '' };

const asFirst = () => privateApi(server);
const asOther = () => privateApi(server, other.personalApiKey);

beforeAll(async () => {
  server = await sharedLocalServer('isolation', { organization: true });
  other = await newOrganization(server, { organizationName: 'Second org' });
  await postJson(server, '/capture/', {
    api_key: server.credentials.projectApiKey,
    event: 'first org event',
    properties: { distinct_id: 'a' },
  });
  const definitions = await eventually('a definition of the first organization', async () => {
    const page = await asFirst().get<Page<{ id: string }>>(
      `/api/projects/${server.credentials.projectId}/event_definitions/`,
    );
    return page.body.count > 0 ? page.body : undefined;
  });
  first.definitionId = definitions.results[0]!.id;
  first.keyId = (await asFirst().get<Page<{ id: string }>>('/api/personal_api_keys/')).body.results[0]!.id;
  first.userUuid = (await asFirst().get<{ uuid: string }>('/api/users/@me/')).body.uuid;
});

afterAll(async () => {
  await server.stop();
});

const forbidden = {
  status: 403,
  body: {
    type: 'authentication_error',
    code: 'permission_denied',
    detail: "You don't have access to the project.",
    attr: null,
  },
};

describe("a second organization's key", () => {
  const projectRoutes = routes.filter(
    (route) => isPrivateRoute(route) && route.path.includes('{project_id}'),
  );

  it.each(projectRoutes.map((route) => [routeKey(route), route] as const))(
    "gets 403 on %s of the first organization's project",
    async (_key, route) => {
      const path = route.path
        .replace('/{proxy+}', '/')
        .replace('{project_id}', String(server.credentials.projectId))
        .replace('{id}', first.definitionId);
      const response = await asOther().request(
        route.method,
        path,
        route.method === 'POST' || route.method === 'PATCH' ? {} : undefined,
      );
      expect({ path, status: response.status, body: response.body }).toEqual({ path, ...forbidden });
    },
  );

  it("does not list the first organization's projects, nor show its token anywhere", async () => {
    const projects = await asOther().get<Page<{ id: number }>>('/api/projects/');
    expect(projects.body.results.map((project) => project.id)).toEqual([other.projectId]);
    const me = await asOther().get('/api/users/@me/');
    expect(JSON.stringify([projects.body, me.body])).not.toContain(server.credentials.projectApiKey);
    expect(JSON.stringify(me.body)).not.toContain(String(first.userUuid));
  });

  it("cannot delete or change the first organization's project", async () => {
    const id = server.credentials.projectId;
    expect(await asOther().patch(`/api/projects/${id}/`, { name: 'taken' })).toMatchObject(forbidden);
    expect(await asOther().delete(`/api/projects/${id}/`)).toMatchObject(forbidden);
    const still = await asFirst().get<{ name: string }>(`/api/projects/${id}/`);
    expect(still).toMatchObject({ status: 200, body: { name: 'Default project' } });
  });

  it("cannot make the first organization's project its current one", async () => {
    const response = await asOther().patch('/api/users/@me/', {
      set_current_team: server.credentials.projectId,
    });
    expect(response).toMatchObject({
      status: 400,
      body: { code: 'does_not_exist', attr: 'set_current_team' },
    });
  });

  it("gets 404 for the first organization's event definition under its own project", async () => {
    const path = `/api/projects/${other.projectId}/event_definitions/${first.definitionId}/`;
    expect(await asOther().get(path)).toMatchObject({ status: 404, body: { code: 'not_found' } });
    expect(await asOther().patch(path, { description: 'x' })).toMatchObject({ status: 404 });
  });

  it("gets 404 for the first user's personal API keys and user, and never lists them", async () => {
    expect(await asOther().get(`/api/personal_api_keys/${first.keyId}/`)).toMatchObject({ status: 404 });
    expect(await asOther().delete(`/api/personal_api_keys/${first.keyId}/`)).toMatchObject({ status: 404 });
    const keys = await asOther().get<Page<{ id: string }>>('/api/personal_api_keys/');
    expect(keys.body.results.map((key) => key.id)).not.toContain(first.keyId);
    expect(await asOther().get(`/api/users/${first.userUuid}/`)).toMatchObject({ status: 404 });
    // The first user's key still works: the attempt to delete it did nothing.
    expect((await asFirst().get('/api/personal_api_keys/')).status).toBe(200);
  });

  it('works on its own organization, and the first key gets 403 there in turn', async () => {
    expect((await asOther().get(`/api/projects/${other.projectId}/`)).status).toBe(200);
    expect((await asOther().get(`/api/projects/${other.projectId}/events/`)).status).toBe(200);
    expect(await asFirst().get(`/api/projects/${other.projectId}/`)).toMatchObject(forbidden);
    expect(await asFirst().get(`/api/projects/${other.projectId}/event_definitions/`)).toMatchObject(
      forbidden,
    );
  });
});
